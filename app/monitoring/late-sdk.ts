/**
 * The Sentry SDK, loaded after hydration (docs/decisions/0910-sentry-sdk-after-hydration.md):
 * starts the client, takes over from the page's early recorder (early-reports.ts), replaying
 * what it caught with the original errors and their times, and starts tracing
 * (late-monitoring.ts). Only start-browser-monitoring.ts imports it, with `import()`.
 */
import { captureException, getCurrentScope, withScope } from '@sentry/browser';
import { startBrowserClient } from './browser-client';
import { browserOptions, type TracedRouter } from './browser-options';
import type { EarlyReport, EarlyReports, ReportReceiver } from './early-reports';
import { offlineTransport, startTracing } from './late-monitoring';
import type { PageLoadRouter, RouterLocation } from './page-load-route';
import type { PublicConfig } from './public-config';
import { startSpotlight } from './spotlight';

export function startSentry(
  config: PublicConfig,
  early: EarlyReports,
  router: TracedRouter & PageLoadRouter,
  pageLoad: RouterLocation,
): void {
  startBrowserClient(browserOptions(config, offlineTransport));
  // Development only, when the config names a sidecar: before the hand-over, so what the
  // recorder caught is copied there too.
  startSpotlight(config);
  // In the same task as the client's global handlers start: no error is caught twice or missed.
  early.handOver(sdkReceiver, true);
  startTracing(router, pageLoad);
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
