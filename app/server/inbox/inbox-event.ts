/**
 * The detail view of a stored event: what an issue's page shows of one event's payload (the
 * normalised Sentry event JSON the inbox database keeps), shown as Sentry shows it. Pure. The
 * payload format: https://develop.sentry.dev/sdk/data-model/event-payloads/
 */
import { isRecord } from '#app/server/inbox/protocol-values';
import { type RequestDetail, requestDetailOf } from './event-request';
import { eventTagsOf, handledOf, ownTagsOf, pageUrlOf, traceIdOf } from './event-tags';
import { MAX_CONTEXT_LINE, type SourceContext } from './source-maps/resolve-frame';

/** Short fields (level, type, environment, digest) are clipped: they are labels. */
const MAX_LABEL = 100;
/** Source lines an SDK sent around a frame's line, kept on each side (Sentry sends up to 5). */
const SDK_CONTEXT_LINES = 5;

export interface EventSummary {
  eventId: string;
  /** ISO time the event happened, when it says. */
  timestamp?: string;
  level: string;
  /** The exception's type ("TypeError"), or '' for a message event. */
  type: string;
  /** The exception's value or the event's message, its parameters filled in. */
  message: string;
  url?: string;
  environment?: string;
  release?: string;
  /** The digest tag of a server-side failure. */
  digest?: string;
}

export interface StackFrame {
  filename?: string;
  function?: string;
  lineno?: number;
  colno?: number;
  inApp: boolean;
  /** The source lines the SDK sent with the frame (`pre_context`, `context_line`, …). */
  context?: SourceContext;
}

export interface ExceptionDetail {
  type: string;
  value: string;
  /** Most recent call first, as a reader expects. */
  frames: StackFrame[];
  /** Set when the frames are a thread's (the event's exception or message had none). */
  thread?: string;
}

export interface BreadcrumbDetail {
  timestamp?: string;
  type?: string;
  category?: string;
  level?: string;
  message?: string;
  /** The crumb's data as JSON text, when it has any. */
  data?: string;
}

export interface EventDetail extends EventSummary {
  exceptions: ExceptionDetail[];
  breadcrumbs: BreadcrumbDetail[];
  /** Its tags as Sentry shows them: the derived ones, then its own (./event-tags.ts). */
  tags: Array<[string, string]>;
  /** Whether the thrown exception was handled, when its mechanism says. */
  handled?: boolean;
  /** `contexts.trace.trace_id`. */
  traceId?: string;
  /** The request the event failed in, when it names one (server events do). */
  request?: RequestDetail;
}

/** What the page gets for a stored event it cannot show: enough to say so, and no more. */
export interface UnshownEvent {
  eventId: string;
  unshown: true;
}

/** The stored payload as an event, or undefined when it is not a JSON object. */
export function storedEventOf(payload: string): Record<string, unknown> | undefined {
  const event: unknown = JSON.parse(payload);
  return isRecord(event) ? event : undefined;
}

export function eventDetailOf(event: Record<string, unknown>, eventId: string): EventDetail {
  const detail: EventDetail = {
    ...eventSummaryOf(event, eventId),
    exceptions: exceptionsOf(event),
    breadcrumbs: breadcrumbsOf(event),
    tags: eventTagsOf(event),
  };
  const request = requestDetailOf(event);
  if (request) detail.request = request;
  const handled = handledOf(event);
  if (handled !== undefined) detail.handled = handled;
  const traceId = traceIdOf(event);
  if (traceId) detail.traceId = traceId;
  return detail;
}

export function eventSummaryOf(
  event: Record<string, unknown>,
  eventId: string,
  maxText = Number.POSITIVE_INFINITY,
): EventSummary {
  const exceptions = exceptionValues(event);
  // Chained exceptions go oldest to newest: the last one is the error that was thrown.
  const thrown = exceptions[exceptions.length - 1];
  const summary: EventSummary = {
    eventId: clip(eventId, MAX_LABEL),
    level: clip(text(event.level) ?? 'error', MAX_LABEL),
    type: thrown ? clip(text(thrown.type) ?? 'Error', MAX_LABEL) : '',
    message: clip(thrown ? (text(thrown.value) ?? '') : messageOf(event), maxText),
  };
  const timestamp = isoTime(event.timestamp);
  if (timestamp) summary.timestamp = timestamp;
  const url = pageUrlOf(event);
  if (url) summary.url = clip(url, maxText);
  const environment = text(event.environment);
  if (environment) summary.environment = clip(environment, MAX_LABEL);
  const release = text(event.release);
  if (release) summary.release = clip(release, maxText);
  const digest = ownTagsOf(event.tags).find(([key]) => key === 'digest')?.[1];
  if (digest) summary.digest = clip(digest, MAX_LABEL);
  return summary;
}

function exceptionValues(event: Record<string, unknown>): Record<string, unknown>[] {
  return listValues(event.exception);
}

/** A `{ values: [...] }` list as SDKs send it, or a bare list as some older ones do. */
function listValues(container: unknown): Record<string, unknown>[] {
  const values = isRecord(container) ? container.values : container;
  return Array.isArray(values) ? values.filter(isRecord) : [];
}

/**
 * The event's stacks, the thrown exception first. Where the thrown exception has no stack, or
 * a message event has none of its own, the stack is its thread's, as Sentry shows it.
 */
export function exceptionsOf(event: Record<string, unknown>): ExceptionDetail[] {
  const values = exceptionValues(event);
  const exceptions: ExceptionDetail[] = values.map((value) => ({
    type: text(value.type) ?? 'Error',
    value: text(value.value) ?? '',
    frames: framesOf(value.stacktrace),
  }));
  const thrown = exceptions[exceptions.length - 1];
  if (thrown && thrown.frames.length === 0) {
    const stack = threadStackOf(event, values[values.length - 1]?.thread_id);
    if (stack) Object.assign(thrown, stack);
  }
  if (exceptions.length === 0) {
    // A message event may carry its own stack (attachStacktrace), or its thread's.
    const stack = isRecord(event.stacktrace)
      ? { frames: framesOf(event.stacktrace) }
      : threadStackOf(event, undefined);
    if (stack) exceptions.push({ type: '', value: messageOf(event), ...stack });
  }
  return exceptions.reverse();
}

/**
 * The frames of the thread an event names (`thread_id`), else of the crashed thread, else of
 * the current one, else of the only thread with a stack.
 */
function threadStackOf(
  event: Record<string, unknown>,
  threadId: unknown,
): { frames: StackFrame[]; thread: string } | undefined {
  const threads = listValues(event.threads).filter(
    (thread) => framesOf(thread.stacktrace).length > 0,
  );
  const chosen =
    (threadId !== undefined && threads.find((thread) => thread.id === threadId)) ||
    threads.find((thread) => thread.crashed === true) ||
    threads.find((thread) => thread.current === true) ||
    (threads.length === 1 ? threads[0] : undefined);
  if (!chosen) return undefined;
  const name = text(chosen.name) ?? scalarText(chosen.id) ?? 'unnamed';
  const state =
    chosen.crashed === true ? ' (crashed)' : chosen.current === true ? ' (current)' : '';
  return { frames: framesOf(chosen.stacktrace), thread: `${clip(name, MAX_LABEL)}${state}` };
}

function framesOf(stacktrace: unknown): StackFrame[] {
  if (!isRecord(stacktrace) || !Array.isArray(stacktrace.frames)) return [];
  return stacktrace.frames
    .filter(isRecord)
    .map((frame) => {
      const result: StackFrame = { inApp: frame.in_app === true };
      const filename = text(frame.filename) ?? text(frame.abs_path) ?? text(frame.module);
      if (filename) result.filename = filename;
      const fn = text(frame.function);
      if (fn) result.function = fn;
      if (typeof frame.lineno === 'number') result.lineno = frame.lineno;
      if (typeof frame.colno === 'number') result.colno = frame.colno;
      const context = sdkContextOf(frame);
      if (context) result.context = context;
      return result;
    })
    .reverse();
}

/** The lines a server SDK sends around a frame's line, bounded as our own source lines are. */
function sdkContextOf(frame: Record<string, unknown>): SourceContext | undefined {
  if (typeof frame.context_line !== 'string') return undefined;
  const lines = (value: unknown) =>
    Array.isArray(value)
      ? value.map((line) => (typeof line === 'string' ? sourceLine(line) : ''))
      : [];
  return {
    pre: lines(frame.pre_context).slice(-SDK_CONTEXT_LINES),
    line: sourceLine(frame.context_line),
    post: lines(frame.post_context).slice(0, SDK_CONTEXT_LINES),
  };
}

function sourceLine(line: string): string {
  return line.length > MAX_CONTEXT_LINE ? `${line.slice(0, MAX_CONTEXT_LINE)}…` : line;
}

function breadcrumbsOf(event: Record<string, unknown>): BreadcrumbDetail[] {
  return listValues(event.breadcrumbs).map((crumb) => {
    const result: BreadcrumbDetail = {};
    const timestamp = isoTime(crumb.timestamp);
    if (timestamp) result.timestamp = timestamp;
    for (const key of ['type', 'category', 'level', 'message'] as const) {
      const value = text(crumb[key]);
      if (value) result[key] = value;
    }
    if (crumb.data !== undefined) result.data = jsonText(crumb.data);
    return result;
  });
}

/** Stored payloads are bounded at ingest; a value JSON cannot write is still shown as one. */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return '[unserialisable]';
  }
}

/**
 * The message as Sentry shows it: `logentry.formatted` (its `params` filled in at ingest, as
 * Relay does), else the plain `message`, else the template itself.
 */
function messageOf(event: Record<string, unknown>): string {
  const logentry = isRecord(event.logentry) ? event.logentry : {};
  const message = event.message;
  return (
    text(logentry.formatted) ??
    (typeof message === 'string' ? text(message) : undefined) ??
    (isRecord(message) ? (text(message.formatted) ?? text(message.message)) : undefined) ??
    text(logentry.message) ??
    ''
  );
}

/** Sentry timestamps are seconds since the epoch (a float) or an RFC 3339 string. */
function isoTime(value: unknown): string | undefined {
  const date =
    typeof value === 'number'
      ? new Date(value * 1000)
      : typeof value === 'string'
        ? new Date(value)
        : undefined;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Primitives only: String() throws on an object like {"toString":1}. */
function scalarText(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : undefined;
}

function clip(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
