/**
 * Browser side, before hydration: no SDK. The page's early recorder (early-reports.ts, started
 * first by app/client.tsx) catches errors from the first script on, and this starts the page's
 * release-health session. The Sentry SDK loads from our origin once the page has hydrated, and
 * only if the page needs it (decision 0950): the page view is traced (decided here, with the
 * config's sample rate), there is something to report, or an earlier visit left envelopes in
 * the offline store. Then it continues the session and takes over what was caught; tracing
 * loads beside it for a traced page view. If the tab is closed before the SDK arrives, or it
 * cannot be loaded, what was caught is sent without it (early-envelope.ts). See
 * docs/decisions/0910-sentry-sdk-after-hydration.md and 0950-sentry-sdk-on-demand.md.
 */
import type { TracedRouter } from './browser-options';
import { isDsn, parseDsn, tunnelUrlOf } from './dsn';
import { earlyEnvelopes, type PageSession, sessionAfter, sessionEnvelope } from './early-envelope';
import { type EarlyReport, type EarlyReports, randomEventId } from './early-reports';
import type { PageView } from './late-sdk';
import { offlineStoreHasEnvelopes } from './offline-store';
import { type RenderedRouter, whenPageHydrated } from './page-hydrated';
import type { PageLoadRouter } from './page-load-route';
import type { PublicConfig } from './public-config';

/**
 * When hydration never completes (it failed outright), the page counts as hydrated this long
 * after monitoring started: the error that broke the page is waiting for the SDK.
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
  const page: PageView = {
    session: { sid: randomEventId(), started: Date.now() / 1000, status: 'ok', errors: 0 },
    // Below 1, so a rate of 1 traces every page view and 0 none.
    traced: Math.random() < config.tracesSampleRate,
  };
  const send = envelopeSender(config, tunnelUrlOf(dsn), page.session);
  const pageLoad = router.state.location;
  const needed = whenSdkNeeded(page, early);
  const hydrated = whenPageHydrated(router, shellHydrated);
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, LATE_MONITORING_DEADLINE_MS));

  // The tab is going away before the SDK came: what waits goes now, or never.
  addEventListener('pagehide', () => {
    if (!early.handedOver() && early.pendingCount() > 0) send.reports(early.takePending());
  });
  Promise.race([hydrated, deadline])
    .then(() => {
      // Sent as the SDK would send it, once the page is ready, whether the SDK ever comes or not.
      send.sessionStart();
      return needed;
    })
    .then(() =>
      Promise.all([
        import('./late-sdk'),
        page.traced ? import('./late-tracing').catch(tracingDidNotLoad) : undefined,
        config.spotlight ? import('./spotlight') : undefined,
      ]),
    )
    .then(([late, tracing, spotlight]) => {
      late.startSentry(config, early, page, () => spotlight?.startSpotlight(config));
      try {
        tracing?.startTracing(router, pageLoad);
      } catch (error) {
        // The SDK runs: only this page view's traces are lost.
        tracingDidNotLoad(error);
      }
    })
    .catch((error: unknown) => {
      console.warn('[monitoring] the Sentry SDK did not load; errors are sent without it', error);
      if (!early.handedOver()) {
        early.handOver({ receive: (report) => send.reports([report]) }, false);
      }
    });
}

/**
 * Resolves when the page needs the SDK: at once for a traced page view; otherwise at the first
 * report that is not noise, or when the offline store holds envelopes to send. Never, for most
 * page views: the SDK then costs them nothing.
 */
function whenSdkNeeded(page: PageView, early: EarlyReports): Promise<void> {
  if (page.traced) return Promise.resolve();
  return new Promise((resolve) => {
    // The recorder keeps only reports worth sending (early-reports.ts): each one is a reason.
    early.onReport(() => resolve());
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
 * Sends envelopes to the tunnel without the SDK, in requests that outlive the page, and keeps
 * the page's session up to date with what it sends, as the SDK would with what it captures.
 */
function envelopeSender(config: PublicConfig, tunnel: string, session: PageSession) {
  let started = false;
  const context = () => ({
    dsn: config.dsn,
    environment: config.environment,
    release: config.release,
    userAgent: navigator.userAgent,
    sentAt: new Date(),
  });
  /** Sends the session as `next` says, and whether the browser took the request. */
  const sendSession = (next: PageSession, post: (body: string) => boolean): boolean => {
    const taken = post(sessionEnvelope(next, context(), !started));
    if (taken) started = true;
    return taken;
  };
  return {
    reports(reports: EarlyReport[]) {
      // An uncaught error marks the session `unhandled` here too, or the page's crash would
      // count as a healthy session whenever the SDK never came. Sent first, as the SDK updates
      // the session before it sends the event: the browser refuses beacons once 64 KiB are in
      // flight, which a burst of events can reach. Kept only if the browser took it.
      const next = sessionAfter(session, reports);
      if (next && sendSession(next, (body) => navigator.sendBeacon(tunnel, body))) {
        Object.assign(session, next);
      }
      const envelopes = earlyEnvelopes(reports, {
        ...context(),
        url: location.href,
        newEventId: randomEventId,
      });
      for (const envelope of envelopes) navigator.sendBeacon(tunnel, envelope);
    },
    // With `fetch`, which the SDK's tracing does not list as a resource of the page load (it
    // traces fetches itself, and this one starts before it), where a beacon would be. Skipped
    // when a report sent as the tab closed before hydration has started the session already.
    sessionStart() {
      if (started) return;
      sendSession(session, (body) => {
        fetch(tunnel, { method: 'POST', body, keepalive: true }).catch(() => {
          // Offline or blocked: the session is lost, as the SDK's would be without a store.
        });
        return true;
      });
    },
  };
}
