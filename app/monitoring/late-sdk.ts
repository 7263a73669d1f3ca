/**
 * The Sentry SDK, loaded once the page has hydrated and needs it: the page view is traced, there
 * is something to report, or an earlier visit left envelopes in the offline store (decisions
 * 0910, 0950). Starts the client, continuing the session the page started, and takes over from
 * the page's early recorder (early-reports.ts), replaying what it caught with the original errors
 * and their times. Only start-browser-monitoring.ts imports it, with `import()`.
 */
import {
  captureException,
  getCurrentScope,
  makeBrowserOfflineTransport,
  makeFetchTransport,
  withScope,
} from '@sentry/browser';
import { startBrowserClient } from './browser-client';
import { type BrowserTransportFactory, browserOptions } from './browser-options';
import type { PageSession } from './early-envelope';
import type { EarlyReport, EarlyReports, ReportReceiver } from './early-reports';
import type { PublicConfig } from './public-config';

/**
 * Envelopes that cannot be sent (offline, network error) wait in IndexedDB and are retried with
 * back-off, when the browser comes back online, and when the SDK next starts. The options (the
 * queue of 64, `flushAtStartup`) are the ones given at init (browser-options.ts).
 */
const offlineTransport: BrowserTransportFactory = makeBrowserOfflineTransport(makeFetchTransport);

/** What the page decided before the SDK came. */
export interface PageView {
  session: PageSession;
  traced: boolean;
}

/**
 * @param beforeHandOver adds what must see the recorder's reports too (Spotlight, in development).
 */
export function startSentry(
  config: PublicConfig,
  early: EarlyReports,
  page: PageView,
  beforeHandOver: () => void = () => {},
): void {
  startBrowserClient(browserOptions(config, offlineTransport, page.traced), page.session);
  beforeHandOver();
  // In the same task as the client's global handlers start: no error is caught twice or missed.
  early.handOver(sdkReceiver, true);
}

/** Each report as the SDK would have made it then: same handler, same error, same time. */
const sdkReceiver: ReportReceiver = {
  receive(report: EarlyReport) {
    withScope((scope) => {
      scope.addEventProcessor((event) => ({ ...event, timestamp: report.at }));
      switch (report.kind) {
        case 'error': {
          // Through the SDK's own window.onerror, as Sentry's loader replays them.
          const { message, filename, lineno, colno, error } = report.event;
          window.onerror?.(message, filename, lineno, colno, error);
          break;
        }
        case 'rejection':
          window.onunhandledrejection?.(report.event);
          break;
        case 'exception':
          captureException(report.error, {
            mechanism: report.mechanism,
            event_id: report.eventId,
          });
          break;
        case 'message':
          scope.setTags(report.context.tags ?? {});
          scope.setExtras(report.context.extra ?? {});
          getCurrentScope().captureMessage(report.message, report.context.level, {
            event_id: report.eventId,
          });
          break;
      }
    });
  },
};
