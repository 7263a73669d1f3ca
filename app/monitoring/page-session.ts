/**
 * The page's release-health session, which starts before the SDK (loaded only when needed, if
 * ever, decision 0950): sent without it at hydration, and updated without it when reports leave
 * by beacon as the tab closes. The SDK, if it loads, continues the same session
 * (adopted-session.ts). Both the envelope and the update rule are the SDK's, written small;
 * tests/unit/monitoring/page-session.test.ts holds them to the SDK's own output.
 */
import type { EnvelopeContext } from './recorder/minimal-envelope';
import type { Report } from './recorder/report';

/**
 * `started` in seconds since the epoch; `status` and `errors` as last sent without the SDK. The
 * SDK, if it loads, starts from them and keeps its own copy.
 */
export interface PageSession {
  sid: string;
  started: number;
  status: 'ok' | 'unhandled';
  errors: number;
}

/** What a session envelope says besides the session: the same as a report's envelope. */
export type SessionContext = EnvelopeContext;

/**
 * A session envelope, as the SDK's client sends one (one session a page load, its duration not
 * tracked). With `init`, the session's first envelope.
 */
export function sessionEnvelope(
  session: PageSession,
  context: SessionContext,
  init = true,
): string {
  const header = { sent_at: context.sentAt.toISOString(), sdk: context.sdk, dsn: context.dsn };
  const item = {
    sid: session.sid,
    init,
    started: new Date(session.started * 1000).toISOString(),
    timestamp: context.sentAt.toISOString(),
    status: session.status,
    errors: session.errors,
    attrs: {
      release: context.release,
      environment: context.environment,
      user_agent: context.userAgent,
    },
  };
  return [JSON.stringify(header), JSON.stringify({ type: 'session' }), JSON.stringify(item)].join(
    '\n',
  );
}

/**
 * The session once these reports are sent, when the SDK would send an update for them, else
 * undefined. The SDK's rule (`_updateSessionFromEvent` in @sentry/core's client): only while the
 * session is `ok`, at its first error and at its first unhandled one, which the browser SDK marks
 * `unhandled`. A message counts as a (handled) error too: the browser SDK 11 gives a message
 * event a synthetic exception. tests/unit/monitoring/page-session.test.ts checks each case
 * against the SDK itself.
 */
export function sessionAfter(
  session: PageSession,
  reports: readonly Report[],
): PageSession | undefined {
  let next: PageSession | undefined;
  for (const report of reports) {
    const current = next ?? session;
    if (current.status !== 'ok') break;
    const unhandled = report.mechanism?.handled === false;
    const status = unhandled ? 'unhandled' : current.status;
    const errors = current.errors || 1;
    if (status === current.status && errors === current.errors) continue;
    next = { ...current, status, errors };
  }
  return next;
}
