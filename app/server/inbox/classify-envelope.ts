/**
 * What the inbox does with each item of a valid envelope (envelope.ts, readEnvelope): the error event to
 * group and store, the session updates to aggregate into release health, and a count of every
 * item by type (spans, transactions, client reports, attachments, … are only counted). Items
 * Relay would accept and then drop are dropped here too, with the reason. Pure: the time of
 * arrival and the id maker are given.
 *
 * - Events: the `event` item (at most one: Relay's limits). Its payload must be a UTF-8 JSON
 *   object, else it is dropped as Relay's processing drops it ("invalid_json"). Its id is the
 *   envelope's `event_id`, or a new one when the envelope has none (`Envelope::parse_request`,
 *   https://github.com/getsentry/relay/blob/master/relay-server/src/envelope/mod.rs); the rest of
 *   its normalisation is normalise-event.ts.
 * - Sessions (`session`: one session's update; `sessions`: pre-aggregated counts), validated as
 *   Relay's session processing does
 *   (https://github.com/getsentry/relay/blob/master/relay-server/src/services/processor/session.rs):
 *   `started` is required, times are RFC 3339, `attrs.release` must be a valid release (not
 *   empty, at most 200 characters, no `/ \ \r \n \f \v`, not `.`, `..` or `latest`), an invalid
 *   environment is dropped (kept is at most 64 characters, no `/ \r \n \f`), the status must be
 *   known, a `timestamp` before `started` becomes `started`, and an update whose times are more
 *   than 5 days old or 60 s ahead of arrival is dropped (`max_session_secs_in_past`,
 *   `max_secs_in_future`). Aggregates keep their buckets within those times.
 *
 * Release health from updates, as Relay's session metrics count it
 * (relay-server/src/metrics_extraction/sessions/mod.rs): a session starts with `init: true`; it
 * is errored when any update has `errors > 0` or status `errored`, `crashed`, `abnormal` or
 * `unhandled` (count each `sessionId` once); unhandled, crashed or abnormal with that status.
 * An aggregate adds `exited + errored + abnormal + unhandled + crashed` sessions, all but the
 * exited errored. What the page shows of them: `releaseHealthOf` in ./store/inbox-reads.server.ts.
 */
import type { EnvelopeItem, ValidEnvelope } from './envelope';
import { isRecord, newEventId, normaliseEventId, parseDateTime } from './envelope';
import { type NormalisedEvent, normaliseEvent } from './normalise-event';

export type SessionStatus = 'ok' | 'exited' | 'crashed' | 'abnormal' | 'errored' | 'unhandled';

interface SessionAttributes {
  release: string;
  environment?: string;
}

/** One session's state as an SDK reports it; times in milliseconds since the epoch. */
export interface SessionStateUpdate extends SessionAttributes {
  kind: 'session';
  /** 32 lower-case hex digits. */
  sessionId: string;
  distinctId?: string;
  /** The session's first update: count the session once, here. */
  init: boolean;
  status: SessionStatus;
  errors: number;
  started: number;
  timestamp: number;
}

/** Sessions an SDK counted itself (server SDKs, per request), for one `started` bucket. */
export interface SessionAggregate extends SessionAttributes {
  kind: 'aggregate';
  distinctId?: string;
  started: number;
  exited: number;
  errored: number;
  abnormal: number;
  unhandled: number;
  crashed: number;
}

export type SessionUpdate = SessionStateUpdate | SessionAggregate;

export interface DroppedItem {
  type: string;
  reason: string;
}

export interface EnvelopeContents {
  /** The error event to group and store. */
  event?: NormalisedEvent;
  sessionUpdates: SessionUpdate[];
  /** Every item by type; a type Relay does not know counts as "other". */
  counts: Record<string, number>;
  /** Items Relay would accept and then drop, and why. */
  dropped: DroppedItem[];
}

export interface ClassifyOptions {
  receivedAt: Date;
  /** Makes the id of an event whose envelope has none (default: a random UUID). */
  newEventId?: () => string;
}

const MAX_SECONDS_IN_FUTURE = 60;
const MAX_SESSION_SECONDS_IN_PAST = 5 * 24 * 3600;
const STATUSES = new Set<string>(['ok', 'exited', 'crashed', 'abnormal', 'errored', 'unhandled']);
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

export function classifyEnvelope(
  envelope: ValidEnvelope,
  options: ClassifyOptions,
): EnvelopeContents {
  const contents: EnvelopeContents = { sessionUpdates: [], counts: emptyItemCounts(), dropped: [] };
  const received = options.receivedAt.getTime();
  for (const item of envelope.items) {
    const type = item.header.type as string;
    countItemType(contents.counts, type);
    const drop = (reason: string) => contents.dropped.push({ type, reason });
    if (type === 'event') {
      const payload = jsonObject(item);
      if (!payload) {
        drop('invalid_json: the payload is not a JSON object');
        continue;
      }
      const eventId = envelope.eventId ?? (options.newEventId ?? newEventId)();
      contents.event = normaliseEvent(payload, { eventId, receivedAt: options.receivedAt });
    } else if (type === 'session') {
      const update = sessionUpdateOf(jsonObject(item), received);
      if (typeof update === 'string') drop(`invalid session: ${update}`);
      else contents.sessionUpdates.push(update);
    } else if (type === 'sessions') {
      const aggregates = sessionAggregatesOf(jsonObject(item), received);
      if (typeof aggregates === 'string') drop(`invalid sessions: ${aggregates}`);
      else contents.sessionUpdates.push(...aggregates);
    }
  }
  return contents;
}

function jsonObject(item: EnvelopeItem): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(strictDecoder.decode(item.payload));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Relay's `SessionUpdate::parse` and `process_session`; a string says why it is dropped. */
function sessionUpdateOf(
  payload: Record<string, unknown> | undefined,
  received: number,
): SessionStateUpdate | string {
  if (!payload) return 'not a JSON object';
  const started = parseDateTime(payload.started);
  if (started === undefined) return 'started';
  let timestamp = payload.timestamp == null ? received : parseDateTime(payload.timestamp);
  if (timestamp === undefined) return 'timestamp';
  timestamp = Math.max(timestamp, started);
  if (!isRecentEnough(started, received) || !isRecentEnough(timestamp, received)) {
    return 'times out of range';
  }
  const sessionId = payload.sid == null ? newEventId() : normaliseEventId(payload.sid);
  if (sessionId === undefined) return 'sid';
  const status = payload.status ?? 'ok';
  if (typeof status !== 'string' || !STATUSES.has(status)) return 'status';
  const errors = payload.errors ?? 0;
  if (!Number.isSafeInteger(errors) || (errors as number) < 0) return 'errors';
  const init = payload.init ?? false;
  if (typeof init !== 'boolean') return 'init';
  const attributes = attributesOf(payload.attrs);
  if (typeof attributes === 'string') return attributes;
  const distinctId = distinctIdOf(payload.did);
  if (distinctId === null) return 'did';
  const update: SessionStateUpdate = {
    kind: 'session',
    ...attributes,
    sessionId,
    init,
    status: status as SessionStatus,
    errors: errors as number,
    started,
    timestamp,
  };
  if (distinctId !== undefined) update.distinctId = distinctId;
  return update;
}

/** Relay's `SessionAggregates::parse` and `process_session_aggregates`. */
function sessionAggregatesOf(
  payload: Record<string, unknown> | undefined,
  received: number,
): SessionAggregate[] | string {
  if (!payload || !Array.isArray(payload.aggregates)) return 'aggregates';
  const attributes = attributesOf(payload.attrs);
  if (typeof attributes === 'string') return attributes;
  const aggregates: SessionAggregate[] = [];
  for (const bucket of payload.aggregates) {
    if (!isRecord(bucket)) return 'aggregates';
    const started = parseDateTime(bucket.started);
    if (started === undefined) return 'started';
    const counts = (['exited', 'errored', 'abnormal', 'unhandled', 'crashed'] as const).map((key) =>
      countOf(bucket[key]),
    );
    const distinctId = distinctIdOf(bucket.did);
    if (counts.includes(undefined) || distinctId === null) return 'aggregates';
    if (!isRecentEnough(started, received)) continue;
    const [exited, errored, abnormal, unhandled, crashed] = counts as number[];
    const aggregate: SessionAggregate = {
      kind: 'aggregate',
      ...attributes,
      started,
      exited: exited as number,
      errored: errored as number,
      abnormal: abnormal as number,
      unhandled: unhandled as number,
      crashed: crashed as number,
    };
    if (distinctId !== undefined) aggregate.distinctId = distinctId;
    aggregates.push(aggregate);
  }
  return aggregates.length > 0 ? aggregates : 'times out of range';
}

function isRecentEnough(time: number, received: number): boolean {
  return (
    received - time <= MAX_SESSION_SECONDS_IN_PAST * 1000 &&
    time - received <= MAX_SECONDS_IN_FUTURE * 1000
  );
}

function countOf(value: unknown): number | undefined {
  if (value == null) return 0;
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0xffff_ffff
    ? (value as number)
    : undefined;
}

/** A string `did`, undefined when there is none, null when it is not a string. */
function distinctIdOf(value: unknown): string | undefined | null {
  if (value == null) return undefined;
  return typeof value === 'string' ? value : null;
}

/** `attrs` with a valid release (else the reason) and the environment when valid. */
function attributesOf(attrs: unknown): SessionAttributes | string {
  if (!isRecord(attrs)) return 'attrs';
  const { release, environment } = attrs;
  if (
    typeof release !== 'string' ||
    release === '' ||
    release.length > 200 ||
    /[/\\\r\n\f\v]/.test(release) ||
    release === '.' ||
    release === '..' ||
    release.toLowerCase() === 'latest'
  ) {
    return 'release';
  }
  if (environment != null && typeof environment !== 'string') return 'attrs';
  const valid =
    typeof environment === 'string' &&
    environment !== '' &&
    environment.length <= 64 &&
    !/[/\r\n\f]/.test(environment);
  return valid ? { release, environment } : { release };
}

/**
 * The item types Relay knows (`ItemType` in relay-server/src/envelope/item.rs,
 * https://github.com/getsentry/relay/blob/master/relay-server/src/envelope/item.rs). Relay drops
 * an item of any other type; here it is counted under one "other" row, so a client inventing
 * names cannot add a row (or a word on /errors) per name.
 */
export const KNOWN_ITEM_TYPES: ReadonlySet<string> = new Set([
  'event',
  'transaction',
  'security',
  'attachment',
  'form_data',
  'raw_security',
  'nel',
  'unreal_report',
  'user_report',
  'user_report_v2',
  'feedback',
  'session',
  'sessions',
  'statsd',
  'metric_buckets',
  'client_report',
  'profile',
  'profile_chunk',
  'replay_event',
  'replay_recording',
  'replay_video',
  'check_in',
  'span',
  'otel_span',
  'otel_traces_data',
  'log',
  'otel_log',
  'trace_metric',
]);

/** The one row every unknown item type is counted under. */
export const OTHER_ITEM_TYPE = 'other';

/**
 * Counts of item types, safe for names that come from the envelope: no prototype (a type
 * called "constructor" is just a name) and only the types Relay knows, the rest as "other".
 */
export function countItemType(counts: Record<string, number>, type: unknown, by = 1): void {
  const name = typeof type === 'string' && KNOWN_ITEM_TYPES.has(type) ? type : OTHER_ITEM_TYPE;
  counts[name] = (counts[name] ?? 0) + by;
}

export function emptyItemCounts(): Record<string, number> {
  return Object.create(null) as Record<string, number>;
}
