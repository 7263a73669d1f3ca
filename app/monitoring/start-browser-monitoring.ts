/**
 * Browser side, before hydration: no SDK. The recorder (recorder/recorder.ts, inline in the head)
 * has caught errors from the first byte; the app claims it here, hands it the SDK's noise rules,
 * and starts the page's release-health session. The Sentry SDK loads from our origin once the
 * page has hydrated, and only if the page needs it (decision 0950): the page view is traced
 * (decided here, with the config's sample rate), there is something to report (caught here, or
 * left by an earlier page view), or the SDK's offline store holds envelopes. Then it continues
 * the session and takes the reports over; tracing loads beside it for a traced page view. If the
 * SDK cannot load (offline, a deploy replaced it), the reports stay stored and it is tried again
 * when the browser comes back online; the recorder sends them by beacon if the tab closes first.
 * See docs/decisions/0910-*.md, 0950-*.md and 0510-*.md.
 */

import type { PublicConfig } from '#app/site-config';
import type { TracedRouter } from './browser-options';
import { isDsn, parseDsn } from './dsn';
import { offlineStoreHasEnvelopes } from './offline-store';
import { type RenderedRouter, whenPageHydrated } from './page-hydrated';
import type { PageLoadRouter } from './page-load-route';
import { type PageSession, sessionAfter, sessionEnvelope } from './page-session';
import type { Recorder } from './recorder/recorder';
import { type Report, randomEventId } from './recorder/report';
import type { SdkMetadata } from './recorder/sdk-metadata';
import { isWorthSending } from './report-noise';
import type { PageView } from './sdk-loader';

/**
 * When hydration never completes (it failed outright), the page counts as hydrated this long
 * after monitoring started: the error that broke the page is waiting for the SDK.
 */
export const LATE_MONITORING_DEADLINE_MS = 5_000;

/** @param shellHydrated resolves once React has committed the hydrated document's shell. */
export function startBrowserMonitoring(
  router: TracedRouter & PageLoadRouter & RenderedRouter,
  config: PublicConfig | undefined,
  recorder: Recorder,
  shellHydrated: Promise<void>,
): void {
  // Every page the server renders carries the config; only a page that is not ours does not.
  if (!config) {
    console.error('[monitoring] the page carries no site config: browser errors are not reported');
    return;
  }
  const dsn = parseDsn(config.dsn);
  if (!isDsn(dsn)) throw new Error(`The browser DSN is not a Sentry DSN (${dsn.error})`);
  const page: PageView = {
    session: { sid: randomEventId(), started: Date.now() / 1000, status: 'ok', errors: 0 },
    // Below 1, so a rate of 1 traces every page view and 0 none.
    traced: Math.random() < config.tracesSampleRate,
  };
  const session = sessionSender(config, page.session, recorder.sdk);
  recorder.claim({ keep: isWorthSending, beforeLeave: session.leaving });
  const pageLoad = router.state.location;
  const needed = whenSdkNeeded(page, recorder);
  const hydrated = whenPageHydrated(router, shellHydrated);
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, LATE_MONITORING_DEADLINE_MS));

  const loadSdk = () =>
    Promise.all([
      import('./sdk-loader'),
      page.traced ? import('./tracing').catch(tracingDidNotLoad) : undefined,
      config.spotlight ? import('./spotlight') : undefined,
    ])
      .then(async ([late, tracing, spotlight]) => {
        const handedOver = late.startSentry(config, recorder, page, () =>
          spotlight?.startSpotlight(config),
        );
        try {
          tracing?.startTracing(router, pageLoad);
        } catch (error) {
          // The SDK runs: only this page view's traces are lost.
          tracingDidNotLoad(error);
        }
        await handedOver;
      })
      .catch((error: unknown) => {
        if (recorder.handedOver()) return;
        // The reports stay stored: sent when the SDK loads (back online, or the next page view),
        // or by beacon if the tab closes first.
        console.warn('[monitoring] the Sentry SDK did not load; trying again once online', error);
        addEventListener('online', loadSdk, { once: true });
      });

  Promise.race([hydrated, deadline])
    .then(() => {
      // Sent as the SDK would send it, once the page is ready, whether the SDK ever comes or not.
      session.start();
      return needed;
    })
    .then(loadSdk);
}

/**
 * Resolves when the page needs the SDK: at once for a traced page view; otherwise at the first
 * report that is not noise, or when the offline store holds envelopes to send. Never, for most
 * page views: the SDK then costs them nothing.
 */
function whenSdkNeeded(page: PageView, recorder: Recorder): Promise<void> {
  if (page.traced) return Promise.resolve();
  return new Promise((resolve) => {
    // The recorder keeps only reports worth sending (report-noise.ts): each one is a reason.
    recorder.onReport(() => resolve());
    void offlineStoreHasEnvelopes().then((leftovers) => {
      if (leftovers) resolve();
    });
  });
}

function tracingDidNotLoad(error: unknown): undefined {
  console.warn('[monitoring] tracing did not start; this page view is not traced', error);
  return undefined;
}

/**
 * The page's session without the SDK: started at hydration, and updated as reports leave by
 * beacon before the SDK came (the recorder calls `leaving` first: the browser refuses beacons
 * once 64 KiB are in flight, which a burst of events can reach).
 */
function sessionSender(config: PublicConfig, session: PageSession, sdk: SdkMetadata) {
  let started = false;
  const envelope = (next: PageSession) =>
    sessionEnvelope(
      next,
      {
        dsn: config.dsn,
        environment: config.environment,
        release: config.release,
        userAgent: navigator.userAgent,
        sentAt: new Date(),
        sdk,
      },
      !started,
    );
  return {
    // With `fetch`, which the SDK's tracing does not list as a resource of the page load (it
    // traces fetches itself, and this one starts before it), where a beacon would be. Skipped
    // when a report sent as the tab closed before hydration has started the session already.
    start() {
      if (started) return;
      fetch(config.tunnel, { method: 'POST', body: envelope(session), keepalive: true }).catch(
        () => {
          // Offline or blocked: the session is lost, as the SDK's would be without a store.
        },
      );
      started = true;
    },
    // An uncaught error marks the session `unhandled` here too, or the page's crash would count
    // as a healthy session whenever the SDK never came. Kept only if the browser took it.
    leaving(reports: readonly Report[]) {
      const next = sessionAfter(session, reports);
      if (next && navigator.sendBeacon(config.tunnel, envelope(next))) {
        Object.assign(session, next);
        started = true;
      }
    },
  };
}
