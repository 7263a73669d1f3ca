/**
 * A stored event as the inbox reads it (the normalised Sentry event JSON the database keeps):
 * the detail view an issue's page shows of it, as Sentry shows it; the request it failed in;
 * its tags as Sentry derives them (at ingest, for the breakdown, and again when a page
 * shows the event); and strings made well formed before a page renders them. Pure. The payload
 * format: https://develop.sentry.dev/sdk/data-model/event-payloads/
 */
import { isIP } from 'node:net';
import UAParser from 'ua-parser-js';
import { isRecord } from './envelope';
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
  /** Its tags as Sentry shows them: the derived ones, then its own (`eventTagsOf`). */
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

// The request an event says it failed in, as an issue's page shows it: Sentry's `request`
// interface (method, URL, query string, headers), the route (the event's transaction) and,
// for a server function, its name and the page that called it (our `server_function`
// context). Pure; the payload is anyone's, so every field is checked and clipped.
// https://develop.sentry.dev/sdk/data-model/event-payloads/request/

export interface RequestDetail {
  method?: string;
  url?: string;
  query?: string;
  route?: string;
  serverFunction?: { name: string; page?: string };
  headers: Array<[string, string]>;
}

const MAX_TEXT = 2000;
/** A browser sends about twenty; a page of a hundred says nothing more. */
const MAX_HEADERS = 50;

/** Undefined when the event names no request (most browser events name only a URL). */
export function requestDetailOf(event: Record<string, unknown>): RequestDetail | undefined {
  const request = isRecord(event.request) ? event.request : {};
  const detail: RequestDetail = { headers: headersOf(request.headers) };
  const method = clipped(request.method, MAX_LABEL);
  if (method) detail.method = method;
  const url = clipped(request.url, MAX_TEXT);
  if (url) detail.url = url;
  const query = queryOf(request.query_string);
  if (query) detail.query = query;
  const route = clipped(event.transaction, MAX_TEXT);
  if (route) detail.route = route;
  const contexts = isRecord(event.contexts) ? event.contexts : {};
  const serverFunction = isRecord(contexts.server_function) ? contexts.server_function : {};
  const name = clipped(serverFunction.name, MAX_LABEL);
  if (name) {
    detail.serverFunction = { name };
    const page = clipped(serverFunction.page, MAX_TEXT);
    if (page) detail.serverFunction.page = page;
  }
  // A browser event's URL alone is its page, already shown: nothing more to say.
  return detail.method || detail.serverFunction || detail.headers.length > 0 ? detail : undefined;
}

/** Headers as an object (SDKs) or a list of pairs (after Relay). */
function headersOf(value: unknown): Array<[string, string]> {
  const pairs = Array.isArray(value) ? value : isRecord(value) ? Object.entries(value) : [];
  const headers: Array<[string, string]> = [];
  for (const pair of pairs.slice(0, MAX_HEADERS)) {
    if (!Array.isArray(pair) || pair.length !== 2) continue;
    const [key, headerValue] = pair;
    const name = clipped(key, MAX_LABEL);
    const shown = clipped(headerValue, MAX_TEXT);
    if (name && shown) headers.push([name, shown]);
  }
  return headers;
}

/** A query string, or Relay's list of pairs. */
function queryOf(value: unknown): string | undefined {
  if (typeof value === 'string') return clipped(value, MAX_TEXT);
  if (!Array.isArray(value)) return undefined;
  const pairs = value.filter(
    (pair): pair is [string, string] =>
      Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string',
  );
  return clipped(new URLSearchParams(pairs).toString(), MAX_TEXT);
}

/** Text clipped at `max` characters; undefined when empty or not text. */
function clipped(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

// An event's tags as Sentry derives them at ingest and shows them on an event: browser and OS
// (from its contexts, or its request's User-Agent as Relay fills those contexts), page, release,
// environment, level, handled and mechanism (from the thrown exception's mechanism), transaction
// and user (its `sentry:user` key), then the event's own tags. The inbox derives them from the
// stored event, at ingest for the breakdown and again when a page shows the event. Pure.

/** Tag pairs kept per event: the derived ones first, then the event's own. */
export const MAX_TAGS = 50;
/** Sentry's longest tag key and value (Relay's `MaxChars::TagValue`). */
export const MAX_TAG_TEXT = 200;

/**
 * Sentry's user key, the `sentry:user` tag (`EventUser.tag_value` in sentry/utils/eventuser.py):
 * the first of `id`, `username`, `email`, `ip_address` the event's user has, as
 * `id:…`, `username:…`, `email:…`, `ip:…`. An `ip_address` counts only as the literal address an
 * SDK sent: `{{auto}}` asks the ingest to fill in the connection's address, which the inbox never
 * does (decision 1120). A key longer than a tag value may be is no key, as Sentry drops the tag.
 */
export function userKeyOf(event: Record<string, unknown>): string | undefined {
  const user = isRecord(event.user) ? event.user : undefined;
  if (!user) return undefined;
  // Relay reads `id` leniently: a number is its decimal text.
  const id = typeof user.id === 'number' && Number.isFinite(user.id) ? String(user.id) : user.id;
  const ip = typeof user.ip_address === 'string' && isIP(user.ip_address) ? user.ip_address : '';
  const fields: Array<[string, unknown]> = [
    ['id', id],
    ['username', user.username],
    ['email', user.email],
    ['ip', ip],
  ];
  for (const [name, value] of fields) {
    if (typeof value !== 'string' || value === '') continue;
    const key = `${name}:${value}`;
    return key.length > MAX_TAG_TEXT ? undefined : wellFormedText(key);
  }
  return undefined;
}

/** Whether the thrown exception was handled, from its mechanism; undefined when it does not say. */
export function handledOf(event: Record<string, unknown>): boolean | undefined {
  const handled = thrownMechanismOf(event)?.handled;
  return typeof handled === 'boolean' ? handled : undefined;
}

/** The event's trace id (`contexts.trace.trace_id`), when it is one: 32 hex digits. */
export function traceIdOf(event: Record<string, unknown>): string | undefined {
  const contexts = isRecord(event.contexts) ? event.contexts : {};
  const trace = isRecord(contexts.trace) ? contexts.trace : {};
  const id = trace.trace_id;
  return typeof id === 'string' && /^[0-9a-f]{32}$/i.test(id) ? id.toLowerCase() : undefined;
}

/**
 * The event's tags as Sentry shows them, derived ones first (a derived key wins over an own tag
 * of the same name, as Sentry's `set_tag` overwrites it), each key once, each text cut at
 * MAX_TAG_TEXT and made well formed, at most MAX_TAGS.
 */
export function eventTagsOf(event: Record<string, unknown>): Array<[string, string]> {
  const tags: Array<[string, string]> = [];
  const add = (key: string, value: unknown) => {
    if (tags.length >= MAX_TAGS || typeof value !== 'string' || value === '') return;
    if (tags.some(([k]) => k === key)) return;
    tags.push([
      wellFormedText(key.slice(0, MAX_TAG_TEXT)),
      wellFormedText(value.slice(0, MAX_TAG_TEXT)),
    ]);
  };
  const contexts = isRecord(event.contexts) ? event.contexts : {};
  const agent = userAgentOf(event);
  add('browser', nameAndVersion(contexts.browser) ?? nameAndVersion(agent && browserOf(agent)));
  add('os', nameAndVersion(contexts.os) ?? nameAndVersion(agent && osOf(agent)));
  add('url', pathOf(pageUrlOf(event)));
  add('release', event.release);
  add('environment', event.environment);
  add('level', event.level);
  const handled = handledOf(event);
  if (handled !== undefined) add('handled', handled ? 'yes' : 'no');
  add('mechanism', thrownMechanismOf(event)?.type);
  add('transaction', event.transaction);
  add('user', userKeyOf(event));
  add('runtime', nameAndVersion(contexts.runtime));
  for (const [key, value] of ownTagsOf(event.tags)) add(key, value);
  return tags;
}

/**
 * The page an event happened on: for a server function, the page that called it (not
 * `/_server/…`, see `requestDetailOf`); else the request's URL; else an own `url` tag.
 */
export function pageUrlOf(event: Record<string, unknown>): string {
  const contexts = isRecord(event.contexts) ? event.contexts : {};
  const serverFunction = isRecord(contexts.server_function) ? contexts.server_function : {};
  if (typeof serverFunction.page === 'string' && serverFunction.page !== '') {
    return serverFunction.page;
  }
  const request = isRecord(event.request) ? event.request : {};
  if (typeof request.url === 'string') return request.url;
  const tag = ownTagsOf(event.tags).find(([key]) => key === 'url');
  return typeof tag?.[1] === 'string' ? tag[1] : '';
}

/**
 * The mechanism of the exception that was thrown: the last of the chain, as Sentry's
 * `Exception.iter_tags` reads it (sentry/interfaces/exception.py).
 */
function thrownMechanismOf(event: Record<string, unknown>): Record<string, unknown> | undefined {
  const container = event.exception;
  const values = isRecord(container) ? container.values : container;
  if (!Array.isArray(values)) return undefined;
  const thrown: unknown = values[values.length - 1];
  return isRecord(thrown) && isRecord(thrown.mechanism) ? thrown.mechanism : undefined;
}

/** `tags` as an object or as Sentry's [key, value] pairs; a value that is not text is left out. */
export function ownTagsOf(tags: unknown): Array<[string, string]> {
  const pairs: unknown[] = Array.isArray(tags) ? tags : isRecord(tags) ? Object.entries(tags) : [];
  const result: Array<[string, string]> = [];
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') continue;
    const value: unknown = pair[1];
    // Primitives only: String() throws on an object like {"toString":1}.
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      result.push([pair[0], String(value)]);
    }
  }
  return result;
}

/** The request's User-Agent, from which Relay derives the browser and OS an event lacks. */
function userAgentOf(event: Record<string, unknown>): string | undefined {
  const request = isRecord(event.request) ? event.request : {};
  const headers = request.headers;
  const pairs: Array<[unknown, unknown]> = Array.isArray(headers)
    ? headers.filter(Array.isArray).map((pair) => [pair[0], pair[1]])
    : isRecord(headers)
      ? Object.entries(headers)
      : [];
  const found = pairs.find(
    ([name]) => typeof name === 'string' && name.toLowerCase() === 'user-agent',
  );
  return typeof found?.[1] === 'string' ? found[1] : undefined;
}

function nameAndVersion(context: unknown): string | undefined {
  if (!isRecord(context) || typeof context.name !== 'string') return undefined;
  const version = typeof context.version === 'string' ? context.version.split('.')[0] : undefined;
  return version ? `${context.name} ${version}` : context.name;
}

/** A URL's path (the page, without its origin and query), for the breakdown. */
function pathOf(url: string): string {
  if (url === '') return '';
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?')[0] ?? '';
  }
}

/** A browser or OS as a tag shows it: its name, and the major version when the agent gives one. */
export interface NamedVersion {
  name: string;
  version?: string;
}

/**
 * ua-parser-js's names where uap-core's differ: Relay fills `contexts.browser` and `contexts.os`
 * with uap-core's regexes, so these are the names Sentry shows. (ua-parser-js 1.x, MIT; 2.x is
 * AGPL.) The library cuts an agent at 500 characters before any pattern sees it.
 */
const UAP_BROWSER_NAMES: Record<string, string> = {
  'Chrome Headless': 'HeadlessChrome',
  'Chrome WebView': 'Chrome Mobile WebView',
  'Mobile Firefox': 'Firefox Mobile',
};
const UAP_OS_NAMES: Record<string, string> = {
  'Mac OS': 'Mac OS X',
  'Chromium OS': 'Chrome OS',
};

/** The browser of an event that does not say, from its request's `User-Agent`, as uap-core names it. */
export function browserOf(userAgent: string): NamedVersion | undefined {
  const agent = new UAParser(userAgent);
  const { name, major } = agent.getBrowser();
  if (!name) return undefined;
  const os = agent.getOS().name;
  // uap-core tells Chrome on a phone and on iOS apart by name; ua-parser-js by device and OS.
  const uapName =
    name === 'Chrome' && os === 'iOS'
      ? 'Chrome Mobile iOS'
      : name === 'Chrome' && agent.getDevice().type === 'mobile'
        ? 'Chrome Mobile'
        : name === 'Firefox' && os === 'iOS'
          ? 'Firefox iOS'
          : (UAP_BROWSER_NAMES[name] ?? name);
  return namedVersion(uapName, major);
}

/** The OS of an event that does not say, from its request's `User-Agent`, as uap-core names it. */
export function osOf(userAgent: string): NamedVersion | undefined {
  const { name, version } = new UAParser(userAgent).getOS();
  if (!name) return undefined;
  return namedVersion(UAP_OS_NAMES[name] ?? name, version?.split('.')[0]);
}

function namedVersion(name: string, major: string | undefined): NamedVersion {
  return major ? { name, version: major } : { name };
}

// Stored events are whatever a client sent, and JSON may carry a lone UTF-16 surrogate
// (`"\ud800"`). Rendered into HTML it becomes U+FFFD on the wire, while the page's hydration
// data keeps the surrogate, so React finds different text and fails hydration (#418), and the
// browser reports that as a new error on every view. Every string the inbox pages receive goes
// through here first: a lone surrogate becomes U+FFFD on both sides (String#toWellFormed).
// Pure.

/** The platform's own (Node 20 has it; TypeScript's ES2023 lib does not name it yet). */
type WellFormable = string & { toWellFormed(): string };

export function wellFormedText(text: string): string {
  return (text as WellFormable).toWellFormed();
}

/** A copy of `value` (plain JSON-like data) with every string, key or value, well formed. */
export function wellFormed<T>(value: T): T {
  return mapStrings(value) as T;
}

function mapStrings(value: unknown): unknown {
  if (typeof value === 'string') return wellFormedText(value);
  if (Array.isArray(value)) return value.map(mapStrings);
  if (value === null || typeof value !== 'object') return value;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[wellFormedText(key)] = mapStrings(item);
  return copy;
}
