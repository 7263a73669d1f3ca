/**
 * Browser side, before hydration: no SDK. The page's early recorder (early-reports.ts, started
 * first by app/client.tsx) catches errors from the first script on; the Sentry SDK, tracing and
 * the offline store load from our origin once the page has hydrated (late-sdk.ts) and take over
 * what was caught. If the tab is closed before they arrive, or they cannot be loaded, what was
 * caught is sent without them (early-envelope.ts). See
 * docs/decisions/0910-sentry-sdk-after-hydration.md.
 */
import type { TracedRouter } from './browser-options';
import { isDsn, parseDsn, tunnelUrlOf } from './dsn';
import { earlyEnvelopes } from './early-envelope';
import { type EarlyReport, type EarlyReports, randomEventId } from './early-reports';
import { type RenderedRouter, whenPageHydrated } from './page-hydrated';
import type { PageLoadRouter } from './page-load-route';
import type { PublicConfig } from './public-config';

/**
 * When hydration never completes (it failed outright), the late part loads this long after
 * monitoring started anyway: the error that broke the page is waiting for the SDK.
 */
export const LATE_MONITORING_DEADLINE_MS = 5_000;

/** @param shellHydrated resolves once React has committed the hydrated document's shell. */
export function startBrowserMonitoring(
  router: TracedRouter & PageLoadRouter & RenderedRouter,
  config: PublicConfig | undefined,
  early: EarlyReports,
  shellHydrated: Promise<void>,
): void {
  // Every page the server renders carries the config; only a page that is not ours does not.
  if (!config) {
    console.error('[monitoring] the page carries no site config: browser errors are not reported');
    return;
  }
  const dsn = parseDsn(config.dsn);
  if (!isDsn(dsn)) throw new Error(`The browser DSN is not a Sentry DSN (${dsn.error})`);
  const sendWithoutSdk = envelopeSender(config, tunnelUrlOf(dsn));
  const hydrated = whenPageHydrated(router, shellHydrated);
  const pageLoad = router.state.location;

  // The tab is going away before the SDK came: what waits goes now, or never.
  addEventListener('pagehide', () => {
    if (!early.handedOver() && early.pendingCount() > 0) sendWithoutSdk(early.takePending());
  });
  loadAfter(hydrated)
    .then((late) => late.startSentry(config, early, router, pageLoad))
    .catch((error: unknown) => {
      console.warn('[monitoring] the Sentry SDK did not load; errors are sent without it', error);
      if (!early.handedOver()) {
        early.handOver({ receive: (report) => sendWithoutSdk([report]) }, false);
      }
    });
}

type LateSdk = typeof import('./late-sdk');

/** Imports the late part once hydrated, or at the deadline if hydration has not completed. */
function loadAfter(hydrated: Promise<void>): Promise<LateSdk> {
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, LATE_MONITORING_DEADLINE_MS));
  return Promise.race([hydrated, deadline]).then(() => import('./late-sdk'));
}

/** Sends reports as envelopes to the tunnel with `sendBeacon`, which outlives the page. */
function envelopeSender(config: PublicConfig, tunnel: string) {
  return (reports: EarlyReport[]) => {
    const envelopes = earlyEnvelopes(reports, {
      dsn: config.dsn,
      environment: config.environment,
      release: config.release,
      url: location.href,
      userAgent: navigator.userAgent,
      sentAt: new Date(),
      newEventId: randomEventId,
    });
    for (const envelope of envelopes) navigator.sendBeacon(tunnel, envelope);
  };
}
