/**
 * What the inbox keeps of one event: no more than Sentry itself would keep, so that one stored
 * event cannot make its page huge, slow or impossible to render. The local DSN is public, so
 * anyone can store anything; these bounds are what make that harmless. Pure, and never
 * recursive past a fixed depth, so a 100,000-deep value cannot blow the stack.
 *
 * Where each bound comes from (@sentry/core 11.12, the SDK this app ships, and Relay, Sentry's
 * ingestion, for what the SDK leaves open):
 * - 50 frames per stack trace: the SDK's STACKTRACE_FRAME_LIMIT. It keeps the 50 lines of
 *   Error.stack nearest the throw; frames are stored oldest first, so those are the last 50.
 * - 100 breadcrumbs, the newest: the SDK's default maxBreadcrumbs.
 * - 6 exceptions, the thrown one and its 5 nearest causes: the SDK's linkedErrors default limit.
 * - depth 3 and 1,000 properties per object for extra, contexts, user, breadcrumb data and any
 *   other field: the SDK's defaults normalizeDepth 3 and normalizeMaxBreadth 1000, through the
 *   SDK's own normalize() (its hints are symbols, which JSON cannot carry).
 * - string lengths: 11.12 has no default maxValueLength (10.23 dropped the old 250, so the SDK
 *   no longer cuts), so strings are cut where Relay cuts them: 8,192 characters for free text
 *   (messages, exception values, breadcrumb messages), 256 for exception types and frame paths
 *   and functions, 200 for tag keys and values, 128 for breadcrumb types and categories. Cut
 *   strings end in "..." as the SDK's truncate() does.
 * - breadcrumb data at most 2,048 bytes of JSON (Relay's max_bytes for it): entries past the
 *   budget are dropped.
 */
import { normalize, truncate } from '@sentry/core';
import { isRecord } from '#app/server/is-record';

export const EVENT_LIMITS = {
  framesPerStack: 50,
  breadcrumbs: 100,
  exceptions: 6,
  depth: 3,
  breadth: 1000,
  text: 8192,
  symbol: 256,
  tag: 200,
  crumbLabel: 128,
  crumbDataBytes: 2048,
} as const;

const L = EVENT_LIMITS;

type Shaper = (value: unknown) => unknown;

export function normaliseEvent(event: Record<string, unknown>): Record<string, unknown> {
  return shaped(event, {
    exception: exceptionOf,
    stacktrace: stacktraceOf,
    threads: threadsOf,
    breadcrumbs: breadcrumbsOf,
    tags: tagsOf,
  });
}

/** The SDK's normalize() for depth and breadth, then every string cut to `maxText`. */
export function bag(value: unknown, depth: number, maxText: number = L.text): unknown {
  return cutStrings(normalize(value, depth, L.breadth), maxText, depth + 1);
}

/** Bounded by `depth`: normalize() has already turned anything deeper into "[Object]". */
function cutStrings(value: unknown, maxText: number, depth: number): unknown {
  if (typeof value === 'string') return truncate(value, maxText);
  if (value === null || typeof value !== 'object' || depth <= 0) return value;
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, maxText, depth - 1));
  return Object.fromEntries(
    Object.keys(value).map((key) => [
      truncate(key, maxText),
      cutStrings((value as Record<string, unknown>)[key], maxText, depth - 1),
    ]),
  );
}

/** A `{ values: [...] }` list from SDKs, or a bare list from some older ones: `keep` picks. */
function listOf(container: unknown, keep: (values: unknown[]) => unknown[]): unknown {
  const values = isRecord(container) ? container.values : container;
  if (!Array.isArray(values)) return bag(container, L.depth);
  const kept = keep(values);
  return isRecord(container) ? shaped(container, { values: () => kept }) : kept;
}

function exceptionOf(exception: unknown): unknown {
  return listOf(exception, (values) => values.slice(-L.exceptions).map(exceptionValueOf));
}

function exceptionValueOf(value: unknown): unknown {
  if (!isRecord(value)) return bag(value, L.depth);
  return shaped(value, {
    type: symbol,
    module: symbol,
    stacktrace: stacktraceOf,
    raw_stacktrace: stacktraceOf,
  });
}

function threadsOf(threads: unknown): unknown {
  return listOf(threads, (values) =>
    values
      .slice(0, L.breadth)
      .map((thread) =>
        isRecord(thread) ? shaped(thread, { stacktrace: stacktraceOf }) : bag(thread, L.depth),
      ),
  );
}

function stacktraceOf(stacktrace: unknown): unknown {
  if (!isRecord(stacktrace) || !Array.isArray(stacktrace.frames)) return bag(stacktrace, L.depth);
  const frames = stacktrace.frames.slice(-L.framesPerStack).map(frameOf);
  return shaped(stacktrace, { frames: () => frames });
}

function frameOf(frame: unknown): unknown {
  if (!isRecord(frame)) return bag(frame, 1);
  return shaped(frame, {
    filename: symbol,
    abs_path: symbol,
    function: symbol,
    module: symbol,
    package: symbol,
  });
}

function breadcrumbsOf(breadcrumbs: unknown): unknown {
  // Oldest first, as sent: the newest are the last ones.
  return listOf(breadcrumbs, (values) => values.slice(-L.breadcrumbs).map(breadcrumbOf));
}

function breadcrumbOf(crumb: unknown): unknown {
  if (!isRecord(crumb)) return bag(crumb, L.depth);
  return shaped(crumb, {
    type: crumbLabel,
    category: crumbLabel,
    data: (data) => withinBytes(bag(data, L.depth)),
  });
}

/** A bag's first entries that fit in the budget, as Relay trims breadcrumb data. */
function withinBytes(data: unknown): unknown {
  if (!isRecord(data) && !Array.isArray(data)) return data;
  if (JSON.stringify(data).length <= L.crumbDataBytes) return data;
  const kept: Array<[string, unknown]> = [];
  let size = 2;
  for (const [key, value] of Object.entries(data)) {
    size += JSON.stringify(key).length + (JSON.stringify(value)?.length ?? 4) + 2;
    if (size > L.crumbDataBytes) break;
    kept.push([key, value]);
  }
  return Array.isArray(data) ? kept.map(([, value]) => value) : Object.fromEntries(kept);
}

/** Tags are string pairs to Sentry: anything else in them is dropped. */
function tagsOf(tags: unknown): unknown {
  if (Array.isArray(tags)) {
    return tags
      .slice(0, L.breadth)
      .filter((pair) => Array.isArray(pair) && pair.length === 2 && isTag(pair[0], pair[1]))
      .map(([key, value]) => [truncate(key, L.tag), truncate(String(value), L.tag)]);
  }
  if (!isRecord(tags)) return {};
  const entries: Array<[string, string]> = [];
  for (const key of Object.keys(tags).slice(0, L.breadth)) {
    const value = tags[key];
    if (isTag(key, value)) entries.push([truncate(key, L.tag), truncate(String(value), L.tag)]);
  }
  return Object.fromEntries(entries);
}

function isTag(key: unknown, value: unknown): boolean {
  return (
    typeof key === 'string' &&
    (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
  );
}

const symbol: Shaper = (value) => bag(value, 1, L.symbol);
const crumbLabel: Shaper = (value) => bag(value, 1, L.crumbLabel);

/**
 * An object whose fields listed in `shapers` have a shape of their own; every other field is
 * bounded as a bag. Keys keep their order, so an event already within bounds comes out the same.
 */
function shaped(
  value: Record<string, unknown>,
  shapers: Record<string, Shaper>,
): Record<string, unknown> {
  const entries: Array<[string, unknown]> = [];
  for (const key of Object.keys(value).slice(0, L.breadth)) {
    const shaper = Object.hasOwn(shapers, key) ? shapers[key] : undefined;
    entries.push([truncate(key, L.text), shaper ? shaper(value[key]) : bag(value[key], L.depth)]);
  }
  // fromEntries, not assignment: a "__proto__" key stays a plain key.
  return Object.fromEntries(entries);
}
