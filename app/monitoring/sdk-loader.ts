/**
 * The Sentry SDK, loaded once the page has hydrated and needs it: the page view is traced, there
 * is something to report (caught on this page, or left by an earlier one), or the SDK's offline
 * store holds envelopes (decisions 0910, 0950, 0510). Starts the client, continuing the session
 * the page started, and takes over from the recorder (recorder/recorder.ts): the SDK builds each
 * report's event with its own code, from the original error where the page still has it and from
 * the recorded facts otherwise, with the report's id, time and page. Only
 * start-browser-monitoring.ts imports it, with `import()`.
 */
import { captureException, getCurrentScope, withScope } from '@sentry/browser';
import { startBrowserClient } from './browser-client';
import { browserOptions } from './browser-options';
import { deliveryTransport } from './delivery-transport';
import type { PageSession } from './page-session';
import type { PublicConfig } from './public-config';
import type { Recorded, Recorder, ReportReceiver } from './recorder/recorder';
import type { Report } from './recorder/report';

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
  recorder: Recorder,
  page: PageView,
  beforeHandOver: () => void = () => {},
): Promise<void> {
  startBrowserClient(browserOptions(config, deliveryTransport, page.traced), page.session);
  beforeHandOver();
  // In the same task as the client's global handlers start: no error is caught twice or missed.
  return recorder.handOver(sdkReceiver, true);
}

/**
 * An Error as the page would have thrown it: the SDK reads its name, message and stack. No
 * stack when none was recorded: the SDK then uses where the browser said it happened.
 */
function errorOf(report: Report): Error {
  const error = new Error(report.message);
  error.name = report.name ?? 'Error';
  error.stack = report.stack ?? '';
  return error;
}

/** What was thrown: the original while the page lives, else rebuilt from the facts. */
function thrownOf({ report, original }: Recorded): unknown {
  if (original !== undefined) return original;
  // A value that was not an Error is known only as text.
  return report.name === undefined ? report.message : errorOf(report);
}

/** Each report as the SDK would have made it then: same handler, same error, same time. */
export const sdkReceiver: ReportReceiver = {
  receive(recorded: Recorded) {
    const { report } = recorded;
    withScope((scope) => {
      // The report's own id (so that it is sent once), time and page, whenever the SDK sends it.
      scope.addEventProcessor((event) => ({
        ...event,
        event_id: report.id,
        timestamp: report.at,
        request: { ...event.request, url: report.url },
      }));
      const thrown = thrownOf(recorded);
      switch (report.kind) {
        case 'error':
          // Through the SDK's own window.onerror, as Sentry's loader replays them.
          window.onerror?.(
            report.message,
            report.filename,
            report.lineno,
            report.colno,
            // The SDK's handler takes anything thrown; its type says Error.
            (thrown instanceof Error || recorded.original !== undefined ? thrown : undefined) as
              | Error
              | undefined,
          );
          break;
        case 'rejection':
          window.onunhandledrejection?.({ reason: thrown } as PromiseRejectionEvent);
          break;
        case 'asset':
        case 'exception':
          captureException(thrown, { mechanism: report.mechanism, event_id: report.id });
          break;
        case 'message':
          scope.setTags(report.tags ?? {});
          scope.setExtras(report.extra ?? {});
          getCurrentScope().captureMessage(report.message, report.level, { event_id: report.id });
          break;
      }
    });
  },
};
