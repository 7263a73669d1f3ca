/**
 * Browser side: starts Sentry with the config the server rendered into the document, before
 * hydration, so that errors during hydration are reported too. That part is errors only;
 * tracing and the offline store load after hydration (late-monitoring.ts, its own chunk), and
 * what is reported before they arrive waits for them (lazy-transport.ts).
 * See docs/decisions/0830-tracing-and-offline-store-after-hydration.md.
 */
import * as Sentry from '@sentry/react';
import { browserOptions, type TracedRouter } from './browser-options';
import { type RenderedRouter, whenPageHydrated } from './page-hydrated';
import type { PublicConfig } from './public-config';

/**
 * When hydration never completes (it failed outright), the late part loads this long after
 * monitoring started anyway: the error that broke the page is waiting for its transport.
 */
export const LATE_MONITORING_DEADLINE_MS = 5_000;

/** @param shellHydrated resolves once React has committed the hydrated document's shell. */
export function startBrowserMonitoring(
  router: TracedRouter & RenderedRouter,
  config: PublicConfig | undefined,
  shellHydrated: Promise<void>,
): void {
  // Every page the server renders carries the config; only a page that is not ours does not.
  if (!config) {
    console.error('[monitoring] the page carries no site config: browser errors are not reported');
    return;
  }
  const hydrated = whenPageHydrated(router, shellHydrated);
  const pageLoad = router.state.location;
  let load: (late: Promise<LateMonitoring>) => void = () => {};
  const late = new Promise<LateMonitoring>((resolve) => {
    load = resolve;
  });
  const offlineTransport = late.then((parts) => parts.offlineTransport);
  Sentry.init(browserOptions(config, offlineTransport));
  if (config.spotlight) void import('./spotlight').then((m) => m.startSpotlight(config));
  // Only once Sentry has started: with a config it refuses, nothing more loads.
  load(loadAfter(hydrated));
  late.then(
    (parts) => parts.startTracing(router, pageLoad),
    (error: unknown) => console.warn('[monitoring] tracing did not load', error),
  );
}

type LateMonitoring = typeof import('./late-monitoring');

/** Imports the late part once hydrated, or at the deadline if hydration has not completed. */
function loadAfter(hydrated: Promise<void>): Promise<LateMonitoring> {
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, LATE_MONITORING_DEADLINE_MS));
  return Promise.race([hydrated, deadline]).then(() => import('./late-monitoring'));
}
