/**
 * What the inbox pages show of an envelope: a short summary for the list and the full
 * detail of one event. Pure functions over the bytes; the event payload format is
 * https://develop.sentry.dev/sdk/data-model/event-payloads/
 */
import { isRecord } from '#app/server/is-record';
import { countItemType, emptyItemCounts } from './classify-envelope';
import { type Envelope, payloadJson, splitEnvelope } from './envelope';
import { normaliseEvent } from './normalise-event';

/** Item types listed as events; everything else (sessions, spans, …) is only counted. */
const LISTED_TYPES = new Set(['event']);
const MAX_SUMMARY_TEXT = 500;
/** Short fields (ids, level, environment, digest) are clipped harder: they are labels. */
const MAX_LABEL = 100;

export interface EventSummary {
  eventId: string;
  /** ISO time the event happened, when it says. */
  timestamp?: string;
  level: string;
  /** The exception's type ("TypeError"), or '' for a message event. */
  type: string;
  /** The exception's value or the event's message. */
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
}

export interface ExceptionDetail {
  type: string;
  value: string;
  /** Most recent call first, as a reader expects. */
  frames: StackFrame[];
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
  tags: Array<[string, string]>;
}

/** What the detail page gets for an entry it cannot show: enough to say so, and no more. */
export interface UnshownEvent {
  eventId: string;
  unshown: true;
}

export interface EnvelopeSummary {
  /** How many items of each type the envelope holds. */
  itemCounts: Record<string, number>;
  /** The first listed event, if any. */
  event?: EventSummary;
  /** Why the envelope could not be read completely, if it could not. */
  problem?: string;
}

export function summarizeEnvelope(bytes: Uint8Array, fallbackId: string): EnvelopeSummary {
  const envelope = splitEnvelope(bytes);
  const itemCounts = emptyItemCounts();
  for (const item of envelope.items) countItemType(itemCounts, item.header.type);
  const event = firstEvent(envelope);
  const summary: EnvelopeSummary = { itemCounts };
  if (event) summary.event = toSummary(event, envelope, fallbackId, MAX_SUMMARY_TEXT);
  if (envelope.problem) summary.problem = envelope.problem;
  return summary;
}

/**
 * The full detail of the envelope's event, or undefined when it holds none. Bounded again
 * here: entries stored before the inbox bounded events at ingest, or put in the directory by
 * other means, must not make the page huge either.
 */
export function eventDetailOf(bytes: Uint8Array, fallbackId: string): EventDetail | undefined {
  return readEventDetail(bytes, fallbackId)?.detail;
}

/**
 * The detail and the bounded event it was read from: the stack resolver also needs the
 * event's `debug_meta`, which the detail does not carry.
 */
export function readEventDetail(
  bytes: Uint8Array,
  fallbackId: string,
): { detail: EventDetail; event: Record<string, unknown> } | undefined {
  const envelope = splitEnvelope(bytes);
  const found = firstEvent(envelope);
  if (!found) return undefined;
  const event = normaliseEvent(found);
  const detail: EventDetail = {
    ...toSummary(event, envelope, fallbackId, Number.POSITIVE_INFINITY),
    exceptions: exceptionsOf(event),
    breadcrumbs: breadcrumbsOf(event),
    tags: tagsOf(event),
  };
  return { detail, event };
}

/** Only the stack of the envelope's event, for the list's top frame: no breadcrumbs or tags. */
export function readEventStack(
  bytes: Uint8Array,
): { exceptions: ExceptionDetail[]; event: Record<string, unknown> } | undefined {
  const found = firstEvent(splitEnvelope(bytes));
  if (!found) return undefined;
  const event = normaliseEvent(found);
  return { exceptions: exceptionsOf(event), event };
}

function firstEvent(envelope: Envelope): Record<string, unknown> | undefined {
  for (const item of envelope.items) {
    if (!LISTED_TYPES.has(String(item.header.type))) continue;
    const payload = payloadJson(item);
    if (isRecord(payload)) return payload;
  }
  return undefined;
}

function toSummary(
  event: Record<string, unknown>,
  envelope: Envelope,
  fallbackId: string,
  maxText: number,
): EventSummary {
  const exceptions = exceptionValues(event);
  // Chained exceptions go oldest to newest: the last one is the error that was thrown.
  const thrown = exceptions[exceptions.length - 1];
  const request = isRecord(event.request) ? event.request : {};
  const summary: EventSummary = {
    eventId: clip(text(event.event_id) ?? text(envelope.header.event_id) ?? fallbackId, MAX_LABEL),
    level: clip(text(event.level) ?? 'error', MAX_LABEL),
    type: thrown ? clip(text(thrown.type) ?? 'Error', MAX_LABEL) : '',
    message: clip(thrown ? (text(thrown.value) ?? '') : messageOf(event), maxText),
  };
  const timestamp = isoTime(event.timestamp);
  if (timestamp) summary.timestamp = timestamp;
  const url = text(request.url);
  if (url) summary.url = clip(url, maxText);
  const environment = text(event.environment);
  if (environment) summary.environment = clip(environment, MAX_LABEL);
  const release = text(event.release);
  if (release) summary.release = clip(release, maxText);
  const digest = tagsOf(event).find(([key]) => key === 'digest')?.[1];
  if (digest) summary.digest = clip(digest, MAX_LABEL);
  return summary;
}

function exceptionValues(event: Record<string, unknown>): Record<string, unknown>[] {
  const exception = event.exception;
  const values = isRecord(exception) ? exception.values : exception;
  return Array.isArray(values) ? values.filter(isRecord) : [];
}

function exceptionsOf(event: Record<string, unknown>): ExceptionDetail[] {
  const exceptions = exceptionValues(event).map((value) => ({
    type: text(value.type) ?? 'Error',
    value: text(value.value) ?? '',
    frames: framesOf(value.stacktrace),
  }));
  // A message event may carry its own stack (attachStacktrace).
  if (exceptions.length === 0 && isRecord(event.stacktrace)) {
    exceptions.push({ type: '', value: messageOf(event), frames: framesOf(event.stacktrace) });
  }
  return exceptions.reverse();
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
      return result;
    })
    .reverse();
}

function breadcrumbsOf(event: Record<string, unknown>): BreadcrumbDetail[] {
  const raw = isRecord(event.breadcrumbs) ? event.breadcrumbs.values : event.breadcrumbs;
  if (!Array.isArray(raw)) return [];
  return raw.filter(isRecord).map((crumb) => {
    const result: BreadcrumbDetail = {};
    const timestamp = isoTime(crumb.timestamp);
    if (timestamp) result.timestamp = timestamp;
    for (const key of ['type', 'category', 'level', 'message'] as const) {
      const value = text(crumb[key]);
      if (value) result[key] = value;
    }
    if (crumb.data !== undefined) result.data = JSON.stringify(crumb.data);
    return result;
  });
}

function tagsOf(event: Record<string, unknown>): Array<[string, string]> {
  const tags = event.tags;
  // Tags are an object in SDK events, a list of pairs in stored ones: accept both.
  const pairs = Array.isArray(tags) ? tags : isRecord(tags) ? Object.entries(tags) : [];
  const result: Array<[string, string]> = [];
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2) continue;
    const [key, value] = pair;
    // Primitives only: String() throws on an object like {"toString":1}.
    if (typeof key === 'string' && ['string', 'number', 'boolean'].includes(typeof value)) {
      result.push([key, String(value)]);
    }
  }
  return result;
}

function messageOf(event: Record<string, unknown>): string {
  for (const source of [event.message, event.logentry]) {
    if (typeof source === 'string') return source;
    if (isRecord(source)) {
      const message = text(source.formatted) ?? text(source.message);
      if (message) return message;
    }
  }
  return '';
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

function clip(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
