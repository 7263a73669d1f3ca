/**
 * What the inbox keeps of one event: what Sentry would keep, no more, so that one stored event
 * cannot make its page huge, slow or impossible to render. The local DSN is public, so anyone
 * can store anything; these bounds are what make that harmless. Pure, and never recursive past
 * a fixed depth, so a 100,000-deep value cannot blow the stack.
 *
 * At ingest (`normaliseEvent(event, { eventId, receivedAt })`), as Relay's event normalisation
 * does (https://github.com/getsentry/relay/blob/master/relay-event-normalization/src/event.rs and
 * relay-server/src/services/processor/event.rs):
 * - `event_id` is the envelope's (32 lower-case hex digits): Relay overwrites the payload's id
 *   with the envelope header's, which it makes up when there is none (`finalize`).
 * - `timestamp` is the event's own, unless it is missing, unreadable, more than 60 s ahead of
 *   `received` or older than the 90-day retention: then it is `received` (`normalize_timestamps`,
 *   `max_secs_in_future`, `DEFAULT_EVENT_RETENTION`). `received` is the time it arrived.
 * - `level` defaults to `error`; Relay's aliases (`warn`, `critical`, `log`, Python's numbers) are
 *   read.
 * - A top-level `stacktrace` moves into the only exception when that has none
 *   (`normalize_exceptions`).
 * - `exception`, `threads` and `breadcrumbs` given as one bare object are a list of that one
 *   (`Values::from_value`), so Sentry's `exception-compute-hashes` groups by its exception.
 * Always: `logentry` (or the legacy `message`) as Relay normalises it (logentry.ts), top-level
 * fields Relay does not know dropped (`RemoveOtherProcessor`), and these bounds:
 * - 50 frames per stack trace (the SDK's STACKTRACE_FRAME_LIMIT), the 50 nearest the throw: the
 *   last ones, frames being oldest first. Frames keep their source lines (`pre_context`,
 *   `context_line`, `post_context`); thread stacks are bounded the same way.
 * - 100 breadcrumbs, the newest (the SDK's maxBreadcrumbs); 6 exceptions, the thrown one and its
 *   5 nearest causes (the SDK's linkedErrors limit).
 * - Data bags trimmed as Relay's TrimmingProcessor does
 *   (https://github.com/getsentry/relay/blob/master/relay-event-normalization/src/trimming.rs),
 *   with its `BagSize`s: each context and `extra` "large" (depth 7, 8,192 bytes), breadcrumb data
 *   and frame `vars` "medium" (depth 5, 2,048 bytes). A container at the last level is kept as
 *   its JSON text, entries past the byte budget are dropped, strings are cut to what is left.
 *   So `contexts.flags.values` (objects in a list) is kept, never "[Object]".
 * - Other structures (user, request, sdk, debug_meta, …) to depth 7 and 1,000 entries an object.
 * - Strings cut where Relay cuts them (`MaxChars`): 8,192 characters for free text, 256 for
 *   exception types and frame paths and functions, 200 for tag keys and values, culprit,
 *   transaction and release, 128 for breadcrumb types and categories, 64 for environment, dist
 *   and logger. A cut string ends in "..." within that length, as Relay's `trim_string` does.
 */
import { MAX_MESSAGE_CHARS, MAX_STACK_FRAMES } from '#app/monitoring/in-app';
import { isRecord, normaliseEventId, parseTimestamp } from './envelope';
import { normaliseLogentry } from './logentry';

interface BagSize {
  depth: number;
  bytes: number;
}

export const EVENT_LIMITS = {
  framesPerStack: MAX_STACK_FRAMES,
  breadcrumbs: 100,
  exceptions: 6,
  breadth: 1000,
  text: MAX_MESSAGE_CHARS,
  symbol: 256,
  tag: 200,
  crumbLabel: 128,
  short: 64,
  largeBag: { depth: 7, bytes: 8192 },
  mediumBag: { depth: 5, bytes: 2048 },
  structure: { depth: 7, bytes: Number.POSITIVE_INFINITY },
  secondsInFuture: 60,
  secondsInPast: 90 * 24 * 3600,
} as const;

const L = EVENT_LIMITS;

/** An event as stored: what `normaliseEvent` returns at ingest. */
export type NormalisedEvent = Record<string, unknown> & {
  /** 32 lower-case hex digits. */
  event_id: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** When it arrived, in seconds since the epoch. */
  received: number;
  level: string;
};

export interface IngestContext {
  /** The envelope's event id, normalised (or a new one when the envelope has none). */
  eventId: string;
  receivedAt: Date;
}

type Shaper = (value: unknown) => unknown;

const text =
  (max: number): Shaper =>
  (value) =>
    typeof value === 'string' ? cutText(value, max) : undefined;
const structure: Shaper = (value) => trimBag(value, L.structure);

/** The top-level fields of Relay's `Event`; any other is dropped. */
const EVENT_FIELDS: Record<string, Shaper> = {
  event_id: normaliseEventId,
  level: levelOf,
  type: text(L.short),
  version: text(L.short),
  platform: text(L.short),
  timestamp: parseTimestamp,
  start_timestamp: parseTimestamp,
  received: parseTimestamp,
  time_spent: structure,
  culprit: text(L.tag),
  transaction: text(L.tag),
  transaction_info: structure,
  server_name: text(L.symbol),
  release: text(L.tag),
  dist: text(L.short),
  environment: text(L.short),
  logger: text(L.short),
  site: text(L.tag),
  fingerprint: structure,
  modules: structure,
  user: structure,
  request: structure,
  contexts: contextsOf,
  breadcrumbs: breadcrumbsOf,
  exception: exceptionOf,
  stacktrace: stacktraceOf,
  threads: threadsOf,
  template: structure,
  tags: tagsOf,
  extra: (value) => trimBag(value, L.largeBag),
  debug_meta: structure,
  sdk: structure,
  errors: structure,
  measurements: structure,
  breakdowns: structure,
  spans: structure,
  csp: structure,
  hpkp: structure,
  expectct: structure,
  expectstaple: structure,
  key_id: structure,
  project: structure,
  grouping_config: structure,
  checksum: structure,
  scraping_attempts: structure,
};

/** Bounds an event read back from storage; with `ingest`, also gives it id, times and level. */
export function normaliseEvent(event: Record<string, unknown>): Record<string, unknown>;
export function normaliseEvent(
  event: Record<string, unknown>,
  ingest: IngestContext,
): NormalisedEvent;
export function normaliseEvent(
  event: Record<string, unknown>,
  ingest?: IngestContext,
): Record<string, unknown> {
  const entries: Array<[string, unknown]> = [];
  for (const key of Object.keys(event)) {
    if (key === 'logentry' || key === 'message') continue;
    const shaper = Object.hasOwn(EVENT_FIELDS, key) ? EVENT_FIELDS[key] : undefined;
    const value = shaper?.(event[key]);
    if (value !== undefined) entries.push([key, value]);
  }
  const logentry = normaliseLogentry(event.logentry, event.message);
  if (logentry) entries.push(['logentry', logentryOf(logentry)]);
  // fromEntries, not assignment: a "__proto__" key stays a plain key.
  const result = Object.fromEntries(entries);
  moveStacktraceIntoException(result);
  if (!ingest) return result;
  const received = ingest.receivedAt.getTime() / 1000;
  const timestamp = result.timestamp as number | undefined;
  const inRange =
    timestamp !== undefined &&
    timestamp <= received + L.secondsInFuture &&
    timestamp >= received - L.secondsInPast;
  return Object.assign(result, {
    event_id: ingest.eventId,
    timestamp: inRange ? timestamp : received,
    received,
    level: result.level ?? 'error',
  }) as NormalisedEvent;
}

const LEVELS: Record<string, string> = {
  debug: 'debug',
  info: 'info',
  log: 'info',
  warning: 'warning',
  warn: 'warning',
  error: 'error',
  fatal: 'fatal',
  critical: 'fatal',
};
const PYTHON_LEVELS: Record<number, string> = {
  10: 'debug',
  20: 'info',
  30: 'warning',
  40: 'error',
  50: 'fatal',
};

function levelOf(value: unknown): string | undefined {
  if (typeof value === 'number') return PYTHON_LEVELS[value];
  return typeof value === 'string' && Object.hasOwn(LEVELS, value) ? LEVELS[value] : undefined;
}

function logentryOf(logentry: Record<string, unknown>): Record<string, unknown> {
  return shaped(logentry, { message: text(L.text), formatted: text(L.text) });
}

/** Relay's `normalize_exceptions`: one exception without a stack takes the event's stack. */
function moveStacktraceIntoException(event: Record<string, unknown>): void {
  const values = isRecord(event.exception) ? event.exception.values : undefined;
  if (!Array.isArray(values) || values.length !== 1 || event.stacktrace === undefined) return;
  const only = values[0];
  if (!isRecord(only) || only.stacktrace !== undefined) return;
  only.stacktrace = event.stacktrace;
  delete event.stacktrace;
}

/**
 * A `{ values: [...] }` list from SDKs, a bare list from some older ones, or one bare object,
 * which Relay reads as a list of one (`Values::from_value` in relay-protocol: an object without
 * `values` is the only value; an empty object is none): `keep` picks.
 */
function listOf(container: unknown, keep: (values: unknown[]) => unknown[]): unknown {
  if (isRecord(container) && !Object.hasOwn(container, 'values')) {
    return Object.keys(container).length === 0 ? undefined : { values: keep([container]) };
  }
  const values = isRecord(container) ? container.values : container;
  if (!Array.isArray(values)) return structure(container);
  const kept = keep(values);
  return isRecord(container) ? shaped(container, { values: () => kept }) : kept;
}

function exceptionOf(exception: unknown): unknown {
  return listOf(exception, (values) => values.slice(-L.exceptions).map(exceptionValueOf));
}

function exceptionValueOf(value: unknown): unknown {
  if (!isRecord(value)) return structure(value);
  return shaped(value, {
    type: text(L.symbol),
    module: text(L.symbol),
    // Relay's JsonLenientString: anything but a string is kept as its JSON text.
    value: (v) =>
      v === undefined || v === null
        ? undefined
        : cutText(typeof v === 'string' ? v : jsonPrefix(v, L.text + 1), L.text),
    stacktrace: stacktraceOf,
    raw_stacktrace: stacktraceOf,
  });
}

function threadsOf(threads: unknown): unknown {
  return listOf(threads, (values) =>
    values
      .slice(0, L.breadth)
      .map((thread) =>
        isRecord(thread)
          ? shaped(thread, { stacktrace: stacktraceOf, raw_stacktrace: stacktraceOf })
          : structure(thread),
      ),
  );
}

function stacktraceOf(stacktrace: unknown): unknown {
  if (!isRecord(stacktrace) || !Array.isArray(stacktrace.frames)) return structure(stacktrace);
  const frames = stacktrace.frames.slice(-L.framesPerStack).map(frameOf);
  return shaped(stacktrace, { frames: () => frames });
}

const lines: Shaper = (value) =>
  Array.isArray(value)
    ? value
        .slice(0, L.breadth)
        .map((line) => (typeof line === 'string' ? cutText(line, L.text) : null))
    : undefined;

function frameOf(frame: unknown): unknown {
  if (!isRecord(frame)) return structure(frame);
  return shaped(frame, {
    filename: text(L.symbol),
    abs_path: text(L.symbol),
    function: text(L.symbol),
    raw_function: text(L.symbol),
    module: text(L.symbol),
    package: text(L.symbol),
    context_line: text(L.text),
    pre_context: lines,
    post_context: lines,
    vars: (value) => trimBag(value, L.mediumBag),
  });
}

function breadcrumbsOf(breadcrumbs: unknown): unknown {
  // Oldest first, as sent: the newest are the last ones.
  return listOf(breadcrumbs, (values) => values.slice(-L.breadcrumbs).map(breadcrumbOf));
}

function breadcrumbOf(crumb: unknown): unknown {
  if (!isRecord(crumb)) return structure(crumb);
  return shaped(crumb, {
    type: text(L.crumbLabel),
    category: text(L.crumbLabel),
    message: text(L.text),
    data: (data) => trimBag(data, L.mediumBag),
  });
}

/** Each context is its own "large" data bag; a context that is not an object is dropped. */
function contextsOf(contexts: unknown): unknown {
  if (!isRecord(contexts)) return undefined;
  const entries: Array<[string, unknown]> = [];
  for (const key of Object.keys(contexts).slice(0, L.breadth)) {
    const context = contexts[key];
    if (isRecord(context)) entries.push([cutText(key, L.text), trimBag(context, L.largeBag)]);
  }
  return Object.fromEntries(entries);
}

/** Tags are string pairs to Sentry: anything else in them is dropped. */
function tagsOf(tags: unknown): unknown {
  if (Array.isArray(tags)) {
    return tags
      .slice(0, L.breadth)
      .filter((pair) => Array.isArray(pair) && pair.length === 2 && isTag(pair[0], pair[1]))
      .map(([key, value]) => [cutText(key, L.tag), cutText(String(value), L.tag)]);
  }
  if (!isRecord(tags)) return {};
  const entries: Array<[string, string]> = [];
  for (const key of Object.keys(tags).slice(0, L.breadth)) {
    const value = tags[key];
    if (isTag(key, value)) entries.push([cutText(key, L.tag), cutText(String(value), L.tag)]);
  }
  return Object.fromEntries(entries);
}

function isTag(key: unknown, value: unknown): boolean {
  return (
    typeof key === 'string' &&
    (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
  );
}

/**
 * An object whose fields listed in `shapers` have a shape of their own; every other field is
 * kept as a structure. Keys keep their order, so an event already within bounds comes out the
 * same. A shaper's undefined drops the field.
 */
function shaped(
  value: Record<string, unknown>,
  shapers: Record<string, Shaper>,
): Record<string, unknown> {
  const entries: Array<[string, unknown]> = [];
  for (const key of Object.keys(value).slice(0, L.breadth)) {
    const shaper = Object.hasOwn(shapers, key) ? shapers[key] : structure;
    const shapedValue = (shaper as Shaper)(value[key]);
    if (shapedValue !== undefined) entries.push([cutText(key, L.text), shapedValue]);
  }
  return Object.fromEntries(entries);
}

/**
 * A data bag as Relay's TrimmingProcessor leaves it: depth counts from the bag (0); a container
 * where one level is left becomes its JSON text; nothing is kept past the depth or the byte
 * budget, which every value spends (its flat JSON size and a separator) once processed. Keys
 * spend it too, which Relay's estimate leaves out, so a kept bag's JSON is within a few bytes
 * of its budget.
 */
function trimBag(value: unknown, bag: BagSize): unknown {
  const budget = { left: bag.bytes };
  const result = trimValue(value, bag.depth, budget);
  return result === DROPPED ? undefined : result;
}

const DROPPED = Symbol('dropped');

function trimValue(value: unknown, depthLeft: number, budget: { left: number }): unknown {
  if (budget.left <= 0 || depthLeft <= 0) return DROPPED;
  const maxText = Math.min(budget.left, L.text);
  let result: unknown;
  if (typeof value === 'object' && value !== null && depthLeft === 1) {
    result = cutText(jsonPrefix(value, maxText + 1), maxText);
  } else if (typeof value === 'string') {
    result = cutText(value, maxText);
  } else if (Array.isArray(value)) {
    const kept: unknown[] = [];
    for (const item of value.slice(0, L.breadth)) {
      if (budget.left <= 0) break;
      const trimmed = trimValue(item, depthLeft - 1, budget);
      if (trimmed !== DROPPED) kept.push(trimmed);
    }
    result = kept;
  } else if (isRecord(value)) {
    const kept: Array<[string, unknown]> = [];
    for (const key of Object.keys(value).slice(0, L.breadth)) {
      if (budget.left <= 0) break;
      const name = cutText(key, Math.min(budget.left, L.text));
      const trimmed = trimValue(value[key], depthLeft - 1, budget);
      if (trimmed === DROPPED) continue;
      kept.push([name, trimmed]);
      // The key's JSON text and colon: so a bag's bytes are its JSON's.
      budget.left -= name.length + 3;
    }
    result = Object.fromEntries(kept);
  } else {
    result = value;
  }
  budget.left -= flatSize(result) + 1;
  return result;
}

/** JSON size of a value without its children (Relay's `estimate_size_flat`). */
function flatSize(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'object' && value !== null) return 2;
  return String(value).length;
}

/**
 * The JSON text of a value, or its first `max` characters: iterative, so no nesting can
 * overflow the stack, and it stops once it has enough.
 */
function jsonPrefix(value: unknown, max: number): string {
  const pending: unknown[] = [value];
  let out = '';
  while (pending.length > 0 && out.length < max) {
    const next = pending.pop();
    if (next instanceof Token) out += next.text;
    else if (Array.isArray(next)) {
      pending.push(new Token(']'));
      for (let index = next.length - 1; index >= 0; index--) {
        pending.push(next[index] === undefined ? null : next[index]);
        if (index > 0) pending.push(new Token(','));
      }
      out += '[';
    } else if (isRecord(next)) {
      pending.push(new Token('}'));
      const keys = Object.keys(next);
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index] as string;
        pending.push(next[key], new Token(`${JSON.stringify(key)}:`));
        if (index > 0) pending.push(new Token(','));
      }
      out += '{';
    } else out += JSON.stringify(next) ?? 'null';
  }
  return out;
}

class Token {
  constructor(readonly text: string) {}
}

/**
 * The string cut to `max` characters (Unicode code points, as Relay counts them), ending in
 * "..." when cut (Relay's `trim_string`).
 */
function cutText(value: string, max: number): string {
  if (value.length <= max) return value;
  const keep = Math.max(max - 3, 0);
  let keepEnd = 0;
  let count = 0;
  for (let index = 0; index < value.length; count++) {
    if (count === keep) keepEnd = index;
    if (count === max) return `${value.slice(0, keepEnd)}...`;
    index += (value.codePointAt(index) as number) > 0xffff ? 2 : 1;
  }
  return value;
}
