/**
 * Browser side: reads the public config the server rendered into the document and starts
 * Sentry with it, before hydration so that errors during hydration are reported too. That part
 * is errors only; tracing and the offline store load after hydration (late-monitoring.ts, its
 * own chunk), and what is reported before they arrive waits for them (lazy-transport.ts).
 * See docs/decisions/0830-tracing-and-offline-store-after-hydration.md.
 *
 * The config is rendered from the root route's loader data, so a page whose root match failed
 * or never loaded (the root's beforeLoad threw; a child's beforeLoad threw notFound()) comes
 * without it. Then monitoring starts once a later page in the same tab brings the config (the
 * next resolved navigation), instead of staying off for the life of the tab.
 */
import * as Sentry from '@sentry/react';
import { browserOptions, type TracedRouter } from './browser-options';
import { type RenderedRouter, whenPageHydrated } from './page-hydrated';
import { PUBLIC_CONFIG_ELEMENT_ID, type PublicConfig, parsePublicConfig } from './public-config';

/**
 * When hydration never completes (it failed outright), the late part loads this long after
 * monitoring started anyway: the error that broke the page is waiting for its transport.
 */
export const LATE_MONITORING_DEADLINE_MS = 5_000;

/** @param shellHydrated resolves once React has committed the hydrated document's shell. */
export function startBrowserMonitoring(
  router: TracedRouter & RenderedRouter,
  shellHydrated: Promise<void>,
): void {
  const hydrated = whenPageHydrated(router, shellHydrated);
  const start = (config: PublicConfig) => {
    const pageLoad = router.state.location;
    let load: (late: Promise<LateMonitoring>) => void = () => {};
    const late = new Promise<LateMonitoring>((resolve) => {
      load = resolve;
    });
    Sentry.init(
      browserOptions(
        config,
        late.then((parts) => parts.offlineTransport),
      ),
    );
    // Only once Sentry has started: with a config it refuses, nothing more loads.
    load(loadAfter(hydrated));
    late.then(
      (parts) => parts.startTracing(router, pageLoad),
      (error: unknown) => console.warn('[monitoring] tracing did not load', error),
    );
  };
  const config = publicConfigInDocument();
  if (config) {
    start(config);
    return;
  }
  console.warn(
    '[monitoring] no public config in the document yet: browser errors are reported once a page brings it',
  );
  const unsubscribe: () => void = router.subscribe('onResolved', () => {
    const later = publicConfigInDocument();
    if (!later) return;
    unsubscribe();
    start(later);
  });
}

type LateMonitoring = typeof import('./late-monitoring');

/** Imports the late part once hydrated, or at the deadline if hydration has not completed. */
function loadAfter(hydrated: Promise<void>): Promise<LateMonitoring> {
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, LATE_MONITORING_DEADLINE_MS));
  return Promise.race([hydrated, deadline]).then(() => import('./late-monitoring'));
}

function publicConfigInDocument(): PublicConfig | undefined {
  return parsePublicConfig(document.getElementById(PUBLIC_CONFIG_ELEMENT_ID)?.textContent);
}
