/**
 * Envelopes sent without the SDK: reports it never got to (early-reports.ts), because the tab is
 * closing before it arrived or it could not be loaded, and the page's release-health session,
 * which starts before the SDK, loaded only when needed, ever comes. Sentry's event and session
 * formats written out by hand, small, with the SDK's noise filters (filters.ts) applied as the
 * SDK would: an event per envelope, as the envelope format requires. Pure, to be unit tested;
 * see docs/decisions/0910-*.md and 0950-*.md.
 */
import type { EarlyReport } from './early-reports';
import { isExtensionUrl, isNoiseEvent, isResizeObserverLoopNotice } from './filters';
import { isInAppFrame } from './in-app';

/** What an event says about where it happened, besides the report itself. */
export interface EnvelopeContext {
  dsn: string;
  environment: string;
  release: string;
  /** The page's URL and the browser, as the SDK's httpContext integration adds them. */
  url: string;
  userAgent: string;
  sentAt: Date;
  newEventId: () => string;
}

/** As the SDK keeps them (stack-limit.ts): the frames nearest the throw. */
const MAX_FRAMES = 50;
const SDK = { name: 'sentry.javascript.react', version: 'early-reports' };

interface Frame {
  function?: string;
  filename: string;
  lineno: number;
  colno: number;
  in_app: boolean;
}

interface ExceptionValue {
  type: string;
  value: string;
  stacktrace?: { frames: Frame[] };
  mechanism?: { type: string; handled: boolean };
}

/** One envelope per report that is not noise, in order. */
export function earlyEnvelopes(
  reports: readonly EarlyReport[],
  context: EnvelopeContext,
): string[] {
  const envelopes: string[] = [];
  for (const report of reports) {
    const event = eventOf(report, context);
    if (event) envelopes.push(envelopeOf(event, context));
  }
  return envelopes;
}

/**
 * Whether the SDK would send this report: not noise by the filters it is given. A report that is
 * noise (a ResizeObserver loop notice, an extension's error) does not make the page load the SDK.
 */
export function isWorthSending(report: EarlyReport): boolean {
  return eventOf(report, NO_CONTEXT) !== undefined;
}

const NO_CONTEXT: EnvelopeContext = {
  dsn: '',
  environment: '',
  release: '',
  url: '',
  userAgent: '',
  sentAt: new Date(0),
  newEventId: () => '',
};

/**
 * The page's release-health session: `started` in seconds since the epoch; `status` and `errors`
 * as last sent without the SDK. The SDK, if it loads, starts from them and keeps its own copy
 * (adopted-session.ts).
 */
export interface PageSession {
  sid: string;
  started: number;
  status: 'ok' | 'unhandled';
  errors: number;
}

/**
 * A session envelope, as the SDK's browserSession integration and client send it (one session a
 * page load, its duration not tracked). With `init`, the session's first envelope: at hydration,
 * `ok` and no errors, unless the tab closes before that with an error to send, which then goes
 * with it. The SDK, if it loads, continues the same session (adopted-session.ts).
 */
export function sessionEnvelope(
  session: PageSession,
  context: Pick<EnvelopeContext, 'dsn' | 'environment' | 'release' | 'userAgent' | 'sentAt'>,
  init = true,
): string {
  const header = { sent_at: context.sentAt.toISOString(), dsn: context.dsn, sdk: SDK };
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
 * undefined. As the SDK's client does it (`_updateSessionFromEvent` in @sentry/core): only while
 * the session is `ok`, at its first error and at its first unhandled one (an uncaught error, an
 * unhandled rejection), which the browser SDK marks `unhandled`. Noise counts for nothing: it is
 * never sent.
 */
export function sessionAfter(
  session: PageSession,
  reports: readonly EarlyReport[],
): PageSession | undefined {
  let next: PageSession | undefined;
  for (const report of reports) {
    const current = next ?? session;
    if (current.status !== 'ok') break;
    const event = eventOf(report, NO_CONTEXT);
    if (!event) continue;
    // Messages are not errors (and ours are never `fatal`, which the SDK counts as unhandled).
    const values = (event.exception as { values: ExceptionValue[] } | undefined)?.values;
    if (!values) continue;
    const unhandled = values.some((value) => value.mechanism?.handled === false);
    const status = unhandled ? 'unhandled' : current.status;
    const errors = current.errors || 1;
    if (status === current.status && errors === current.errors) continue;
    next = { ...current, status, errors };
  }
  return next;
}

type EarlyEvent = Record<string, unknown> & { event_id: string };

function eventOf(report: EarlyReport, context: EnvelopeContext): EarlyEvent | undefined {
  const base = {
    timestamp: report.at,
    platform: 'javascript',
    environment: context.environment,
    release: context.release,
    request: { url: context.url, headers: { 'User-Agent': context.userAgent } },
    sdk: SDK,
  };
  if (report.kind === 'message') {
    if (isResizeObserverLoopNotice(report.message)) return undefined;
    return {
      ...base,
      event_id: report.eventId,
      level: report.context.level,
      message: report.message,
      tags: report.context.tags,
      extra: report.context.extra,
    };
  }
  const [thrown, mechanism, eventId] = thrownOf(report, context);
  const exception = exceptionOf(thrown, mechanism);
  if (report.kind === 'error' && !exception.stacktrace && report.event.filename) {
    // As the SDK's global handler does for an error without a stack: where the browser says.
    const { filename, lineno, colno } = report.event;
    exception.stacktrace = {
      frames: [{ filename, lineno, colno, function: '?', in_app: isInAppFrame(filename) }],
    };
  }
  const event = { ...base, event_id: eventId, level: 'error', exception: { values: [exception] } };
  return isNoise(event, thrown) ? undefined : event;
}

function thrownOf(
  report: Exclude<EarlyReport, { kind: 'message' }>,
  context: EnvelopeContext,
): [unknown, ExceptionValue['mechanism'], string] {
  switch (report.kind) {
    case 'error':
      return [
        report.event.error ?? report.event.message,
        { type: 'auto.browser.global_handlers.onerror', handled: false },
        context.newEventId(),
      ];
    case 'rejection':
      return [
        report.event.reason,
        { type: 'auto.browser.global_handlers.onunhandledrejection', handled: false },
        context.newEventId(),
      ];
    case 'exception':
      return [report.error, report.mechanism, report.eventId];
  }
}

function exceptionOf(thrown: unknown, mechanism: ExceptionValue['mechanism']): ExceptionValue {
  if (thrown instanceof Error) {
    const frames = parseStack(thrown.stack ?? '');
    return {
      type: thrown.name || 'Error',
      value: thrown.message,
      ...(frames.length > 0 ? { stacktrace: { frames } } : {}),
      mechanism,
    };
  }
  return { type: 'Error', value: typeof thrown === 'string' ? thrown : String(thrown), mechanism };
}

// Chromium: "    at fn (url:1:2)" or "    at url:1:2"; Firefox and Safari: "fn@url:1:2".
const V8_FRAME = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/;
const GECKO_FRAME = /^(.*?)@(.+?):(\d+):(\d+)$/;

/** The frames of a stack, oldest first as Sentry orders them, at most MAX_FRAMES. */
export function parseStack(stack: string): Frame[] {
  const frames: Frame[] = [];
  for (const line of stack.split('\n')) {
    const match = V8_FRAME.exec(line) ?? GECKO_FRAME.exec(line);
    if (!match) continue;
    const [, name, filename = '', lineno, colno] = match;
    frames.push({
      function: name || '?',
      filename,
      lineno: Number(lineno),
      colno: Number(colno),
      in_app: isInAppFrame(filename),
    });
  }
  return frames.reverse().slice(-MAX_FRAMES);
}

/** The SDK's filters as browser-options.ts wires them: ignoreErrors, denyUrls, beforeSend. */
function isNoise(event: { exception: { values: ExceptionValue[] } }, thrown: unknown): boolean {
  const [exception] = event.exception.values;
  if (exception && isResizeObserverLoopNotice(exception.value)) return true;
  const innermost = exception?.stacktrace?.frames.at(-1)?.filename;
  if (innermost && isExtensionUrl(innermost)) return true;
  return isNoiseEvent(event as Parameters<typeof isNoiseEvent>[0], { originalException: thrown });
}

function envelopeOf(event: EarlyEvent, context: EnvelopeContext): string {
  const header = {
    event_id: event.event_id,
    sent_at: context.sentAt.toISOString(),
    dsn: context.dsn,
    sdk: SDK,
  };
  return [JSON.stringify(header), JSON.stringify({ type: 'event' }), JSON.stringify(event)].join(
    '\n',
  );
}
