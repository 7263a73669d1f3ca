/**
 * Envelopes as the inbox reads them: the framing over bytes (as Relay reads it), then the strict
 * reading of an envelope at ingest, and the values in them as Relay reads them (event ids,
 * times, what a JSON record is), which the event and session readers share.
 *
 * Envelope framing over bytes, exactly as Relay reads it, so binary payloads (attachments,
 * replay recordings) pass through untouched. Format:
 * https://develop.sentry.dev/sdk/data-model/envelopes/
 *
 *   <envelope header JSON>\n
 *   <item header JSON>\n
 *   <payload: `length` bytes when the item header names a length, else up to the next \n>\n
 *   …
 *
 * Relay's rules (`Envelope::parse_bytes` and `Item::parse`,
 * https://github.com/getsentry/relay/blob/master/relay-server/src/envelope/mod.rs and
 * https://github.com/getsentry/relay/blob/master/relay-server/src/envelope/item.rs):
 * - A header is one JSON object read as a stream: whitespace before it (blank lines between
 *   items) is skipped, and the byte after it must be \n or the end ("missing newline").
 * - An item header needs a string `type`; `length`, when present, is a u32; `content_type`,
 *   `filename` and `attachment_type` are strings.
 * - A sized payload must fit ("unexpected end of file") and be followed by \n or the end.
 * - Only whitespace left where an item should start is "unexpected end of file".
 *
 * Hand-written rather than `@sentry/core`'s `parseEnvelope`, which is an SDK helper and lenient:
 * it takes `length: 0` as "no length", skips the byte after a sized payload whatever it is, parses
 * every unsized payload as JSON (an attachment without length throws) and reads every item
 * before anything can be bounded.
 *
 * `readEnvelope` (below) applies these rules strictly at ingest; `splitEnvelope` is
 * the lenient reading of stored bytes: a broken item ends the parse with the items read so far.
 */
export interface EnvelopeItem {
  header: Record<string, unknown>;
  payload: Uint8Array;
  /** The item header as it arrived, so an item passed on unchanged stays byte-identical. */
  headerLine?: Uint8Array;
}

export interface Envelope {
  header: Record<string, unknown>;
  items: EnvelopeItem[];
  /** Set when the bytes stopped making sense; items holds what came before. */
  problem?: string;
  /** With a problem: the bytes from where it started, never read. */
  rest?: Uint8Array;
}

/** Relay's `EnvelopeError` messages for what framing can get wrong. */
const FRAMING_ERRORS = {
  missingHeader: 'missing envelope header',
  invalidHeader: 'invalid envelope header',
  invalidItemHeader: 'invalid item header',
  missingNewline: 'missing newline after header or payload',
  unexpectedEof: 'unexpected end of file',
} as const;

export type FramingError = (typeof FRAMING_ERRORS)[keyof typeof FRAMING_ERRORS];

const NEWLINE = 0x0a;
const U32_MAX = 0xffff_ffff;
/** Relay's serde_json rejects headers that are not UTF-8. */
const strictDecoder = new TextDecoder('utf-8', { fatal: true });
const decoder = new TextDecoder();

type HeaderRead =
  | { header: Record<string, unknown>; text: string; start: number; end: number }
  | { error: 'eof' | 'invalid' | 'newline' };

/** The JSON object header whose first byte (after whitespace) is at or after `offset`. */
function readHeader(bytes: Uint8Array, offset: number): HeaderRead {
  let start = offset;
  while (start < bytes.length && isWhitespace(bytes[start] as number)) start += 1;
  if (start === bytes.length) return { error: 'eof' };
  if (bytes[start] !== 0x7b) return { error: 'invalid' };
  const end = objectEnd(bytes, start);
  if (end === -1) return { error: 'invalid' };
  let header: unknown;
  let text: string;
  try {
    text = strictDecoder.decode(bytes.subarray(start, end));
    header = JSON.parse(text);
  } catch {
    return { error: 'invalid' };
  }
  if (!isRecord(header)) return { error: 'invalid' };
  if (end < bytes.length && bytes[end] !== NEWLINE) return { error: 'newline' };
  return { header, text, start, end };
}

/**
 * The members of the JSON object `text` (which JSON.parse accepted) at its top level: each key
 * unescaped, and its value's JSON text. JSON.parse keeps the last of two equal keys and reads
 * `41.0` as 41; Relay's serde types see both, so its rules are checked on these.
 */
export function topLevelMembers(text: string): Array<{ key: string; value: string }> {
  const members: Array<{ key: string; value: string }> = [];
  let depth = 0;
  let key: string | undefined;
  let valueStart = -1;
  const close = (at: number) => {
    if (key !== undefined) members.push({ key, value: text.slice(valueStart, at).trim() });
    key = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      if (depth === 1 && key === undefined && valueStart === -1) {
        key = JSON.parse(text.slice(i, end + 1)) as string;
      }
      i = end;
    } else if (c === 0x3a /* : */ && depth === 1 && valueStart === -1) {
      valueStart = i + 1;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth += 1;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth -= 1;
      if (depth === 0) close(i);
    } else if (c === 0x2c /* , */ && depth === 1) {
      close(i);
      valueStart = -1;
    }
  }
  return members;
}

/**
 * Whether the header's members pass serde as Relay derives it: a key Relay reads into a field
 * given twice is "duplicate field" (a key it keeps in its catch-all map may repeat), and the
 * integer fields take only integer literals (`41.0` is "invalid type: floating point").
 */
function membersAsRelayReads(
  text: string,
  fields: ReadonlySet<string>,
  integers: readonly string[] = [],
): boolean {
  const seen = new Set<string>();
  for (const { key, value } of topLevelMembers(text)) {
    if (!fields.has(key)) continue;
    if (seen.has(key)) return false;
    seen.add(key);
    if (integers.includes(key) && value !== 'null' && !/^-?\d+$/.test(value)) return false;
  }
  return true;
}

/**
 * The keys Relay reads into fields of `EnvelopeHeaders` and its flattened `RequestMeta`
 * (relay-server/src/envelope/mod.rs, extractors/request_meta.rs); any other key goes to `other`.
 */
const ENVELOPE_HEADER_FIELDS: ReadonlySet<string> = new Set([
  'event_id',
  'dsn',
  'client',
  'version',
  'origin',
  'remote_addr',
  'forwarded_for',
  'user_agent',
  'retention',
  'downsampled_retention',
  'sent_at',
  'trace',
  'required_features',
]);

/** The keys Relay reads into fields of `ItemHeaders` (relay-server/src/envelope/item.rs). */
const ITEM_HEADER_FIELDS: ReadonlySet<string> = new Set([
  'type',
  'length',
  'item_count',
  'attachment_type',
  'content_type',
  'filename',
  'platform',
  'routing_hint',
]);
const ITEM_HEADER_INTEGERS = ['length', 'item_count'];

/** Where the JSON object starting at `start` ends (exclusive), or -1 when it never closes. */
function objectEnd(bytes: Uint8Array, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < bytes.length; index++) {
    const byte = bytes[index];
    if (inString) {
      if (byte === 0x5c) index += 1;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) depth += 1;
    else if (byte === 0x7d || byte === 0x5d) {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return -1;
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x09 || byte === 0x0d;
}

/** The envelope header and where the first item starts. */
export function readEnvelopeHeader(
  bytes: Uint8Array,
): { header: Record<string, unknown>; text: string; next: number } | { error: FramingError } {
  const read = readHeader(bytes, 0);
  if ('error' in read) {
    if (read.error === 'eof') return { error: FRAMING_ERRORS.missingHeader };
    if (read.error === 'newline') return { error: FRAMING_ERRORS.missingNewline };
    return { error: FRAMING_ERRORS.invalidHeader };
  }
  return { header: read.header, text: read.text, next: read.end + 1 };
}

/** The item starting at `offset` (after any whitespace) and where the next one starts. */
export function readItem(
  bytes: Uint8Array,
  offset: number,
): { item: EnvelopeItem; next: number } | { error: FramingError } {
  const read = readHeader(bytes, offset);
  if ('error' in read) {
    if (read.error === 'eof') return { error: FRAMING_ERRORS.unexpectedEof };
    if (read.error === 'newline') return { error: FRAMING_ERRORS.missingNewline };
    return { error: FRAMING_ERRORS.invalidItemHeader };
  }
  const { header } = read;
  if (
    !isItemHeader(header) ||
    !membersAsRelayReads(read.text, ITEM_HEADER_FIELDS, ITEM_HEADER_INTEGERS)
  ) {
    return { error: FRAMING_ERRORS.invalidItemHeader };
  }
  // The last header needs no newline, so the payload may start past the end.
  const payloadStart = Math.min(read.end + 1, bytes.length);
  let payloadEnd: number;
  if (typeof header.length === 'number') {
    payloadEnd = payloadStart + header.length;
    if (payloadEnd > bytes.length) return { error: FRAMING_ERRORS.unexpectedEof };
    if (payloadEnd < bytes.length && bytes[payloadEnd] !== NEWLINE) {
      return { error: FRAMING_ERRORS.missingNewline };
    }
  } else {
    const newline = bytes.indexOf(NEWLINE, payloadStart);
    payloadEnd = newline === -1 ? bytes.length : newline;
  }
  const item = {
    header,
    payload: bytes.subarray(payloadStart, payloadEnd),
    headerLine: bytes.subarray(read.start, read.end),
  };
  return { item, next: payloadEnd + 1 };
}

/** The typed fields of Relay's `ItemHeaders`; anything else in a header is kept as it came. */
function isItemHeader(header: Record<string, unknown>): boolean {
  const { type, length, item_count: itemCount } = header;
  if (typeof type !== 'string') return false;
  if (!isOptionalU32(length) || !isOptionalU32(itemCount)) return false;
  return ['content_type', 'filename', 'attachment_type'].every(
    (key) => header[key] === undefined || header[key] === null || typeof header[key] === 'string',
  );
}

function isOptionalU32(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= U32_MAX)
  );
}

/** A stored envelope, read leniently: the items before any problem, and the problem. */
export function splitEnvelope(bytes: Uint8Array): Envelope {
  const first = readEnvelopeHeader(bytes);
  if ('error' in first) return { header: {}, items: [], problem: first.error };
  const items: EnvelopeItem[] = [];
  let offset = first.next;
  while (offset < bytes.length) {
    const read = readItem(bytes, offset);
    if ('error' in read) {
      const problem = `item ${items.length + 1}: ${read.error}`;
      return { header: first.header, items, problem, rest: bytes.subarray(offset) };
    }
    items.push(read.item);
    offset = read.next;
  }
  return { header: first.header, items };
}

/** The item payload as JSON, or undefined when it is not JSON. */
export function payloadJson(item: EnvelopeItem): unknown {
  try {
    return JSON.parse(decoder.decode(item.payload));
  } catch {
    return undefined;
  }
}

/**
 * An envelope judged the way Relay (Sentry's ingest) judges it at its envelope endpoint, for
 * local inbox mode: either a valid envelope, or the status and reason Relay would answer with.
 * Pure and linear: every rule is checked while the items are read, so a flood of items is
 * turned away at the first one over a limit, never parsed whole.
 *
 * 400 (`BadStoreRequest`, https://github.com/getsentry/relay/blob/master/relay-server/src/endpoints/common.rs):
 * - an empty body ("empty request body");
 * - bad framing (envelope.ts): no header, a header that is not a JSON object, a missing newline
 *   after a header or a sized payload, an item header without a string `type`, a `length` that
 *   is not a u32 or runs past the end, whitespace where an item should start;
 * - envelope header fields of the wrong type: an `event_id` that is not a UUID, a `sent_at` that
 *   is not an RFC 3339 datetime (`EnvelopeHeaders`,
 *   https://github.com/getsentry/relay/blob/master/relay-server/src/envelope/mod.rs);
 * - a header key Relay reads into a field given twice (`sent_at` twice: serde's "duplicate
 *   field"), and an item `length` or `item_count` that is not an integer literal (`41.0`);
 * - an item of an internal type (`integration`: "envelope contains internal items");
 * - (checked by the tunnel, which has the request: envelopeOriginProblem) an envelope `origin`
 *   other than the request's.
 *
 * 413 (`BadStoreRequest::Overflow`): the per-type limits of `check_envelope_size_limits`
 * (https://github.com/getsentry/relay/blob/master/relay-server/src/utils/sizes.rs) with Relay's
 * default `limits` (https://github.com/getsentry/relay/blob/master/relay-config/src/config.rs):
 * see ENVELOPE_LIMITS. Relay checks them after framing; here they are checked as items are read,
 * so an envelope both too long and badly framed further on gets the 413.
 *
 * What Relay accepts with 200 and then drops is accepted here too and left to classification
 * (classify-envelope.ts): an envelope with no items, an event payload that is not a JSON
 * object, an invalid session. The envelope's `dsn` is the tunnel's to check (403).
 */
export interface ValidEnvelope {
  header: Record<string, unknown>;
  /** The header's `event_id` as 32 lower-case hex digits, when it has one. */
  eventId?: string;
  /** The header's `sent_at` in milliseconds since the epoch, when it has one. */
  sentAt?: number;
  items: EnvelopeItem[];
}

export type ReadEnvelopeResult =
  | { ok: true; envelope: ValidEnvelope }
  | { ok: false; status: 400 | 413; reason: string };

const KIB = 1024;
const MIB = 1024 * KIB;

interface Limit {
  /** Largest payload of one item (for a container: its average item). */
  itemBytes: number;
  /** Most items of the group in one envelope. */
  count: number;
  /** Largest payload of all the group's items together. */
  totalBytes: number;
}

const limit = (itemBytes: number, count: number, totalBytes = itemBytes): Limit => ({
  itemBytes,
  count,
  totalBytes,
});

/**
 * Relay's default limits per item group (relay-config `Limits::default`, applied by sizes.rs).
 * Event-like items share one group: at most one of them per envelope.
 */
export const ENVELOPE_LIMITS = {
  event: limit(1 * MIB, 1), // max_event_size
  attachment: limit(200 * MIB, 30, 200 * MIB), // max_attachment_size, _count, max_attachments_size
  replayRecording: limit(10 * MIB, 1), // max_replay_compressed_size
  replayVideo: limit(10 * MIB, 1),
  session: limit(10 * MIB, 100, 10 * MIB), // max_sessions_size, max_session_count
  clientReport: limit(100 * KIB, 100, 100 * KIB), // max_client_reports_size, _count
  profile: limit(50 * MIB, 1), // max_profile_size
  checkIn: limit(100 * KIB, 1), // max_check_in_size
  statsd: limit(1 * MIB, 1), // max_statsd_size
  metricBuckets: limit(1 * MIB, 1), // max_metric_buckets_size
  log: limit(2 * MIB, 1, 12 * MIB), // max_log_size, max_container_size
  traceMetric: limit(1 * MIB, 1, 12 * MIB), // max_trace_metric_size, max_container_size
  spanContainer: limit(10 * MIB, 1, 12 * MIB), // max_span_size, max_container_size
  span: limit(10 * MIB, 25, 12 * MIB), // max_span_size, max_standalone_span_count
} as const satisfies Record<string, Limit>;

type Group = keyof typeof ENVELOPE_LIMITS;

/** Relay's item type names (`ItemType::name`) and the limit each counts against. */
const GROUP_OF: Record<string, Group> = {
  event: 'event',
  transaction: 'event',
  security: 'event',
  raw_security: 'event',
  replay_event: 'event',
  feedback: 'event', // ItemType::UserReportV2
  form_data: 'event',
  attachment: 'attachment',
  unreal_report: 'attachment',
  user_report: 'attachment',
  replay_recording: 'replayRecording',
  replay_video: 'replayVideo',
  session: 'session',
  sessions: 'session',
  client_report: 'clientReport',
  profile: 'profile',
  profile_chunk: 'profile',
  check_in: 'checkIn',
  statsd: 'statsd',
  metric_buckets: 'metricBuckets',
  log: 'log',
  trace_metric: 'traceMetric',
};

/** Content types of items that carry many items (`ContentType::is_container`). */
const CONTAINER_TYPES = new Set([
  'application/vnd.sentry.items.span.v2+json',
  'application/vnd.sentry.items.log+json',
  'application/vnd.sentry.items.trace-metric+json',
]);

/**
 * Relay sets no limit on item types it does not know (it drops them in processing mode). So that
 * they cannot make the inbox read items without end, the envelope may hold no more items than
 * one could within every limit above.
 */
export const MAX_ITEMS = Object.values(ENVELOPE_LIMITS).reduce((sum, { count }) => sum + count, 0);

export function readEnvelope(bytes: Uint8Array): ReadEnvelopeResult {
  if (bytes.length === 0) return invalid('empty request body');
  const first = readEnvelopeHeader(bytes);
  if ('error' in first) return invalid(`invalid event envelope: ${first.error}`);
  const { header } = first;
  const eventId = normaliseEventId(header.event_id);
  const sentAt = parseDateTime(header.sent_at);
  if (
    (header.event_id != null && eventId === undefined) ||
    (header.sent_at != null && sentAt === undefined) ||
    !membersAsRelayReads(first.text, ENVELOPE_HEADER_FIELDS)
  ) {
    return invalid('invalid event envelope: invalid envelope header');
  }
  const budget = new Budget();
  const items: EnvelopeItem[] = [];
  let offset = first.next;
  while (offset < bytes.length) {
    const read = readItem(bytes, offset);
    if ('error' in read) return invalid(`invalid event envelope: ${read.error}`);
    if (INTERNAL_ITEM_TYPES.has(read.item.header.type as string)) {
      return invalid('envelope contains internal items');
    }
    const over = budget.take(read.item);
    if (over) return { ok: false, status: 413, reason: over };
    items.push(read.item);
    offset = read.next;
  }
  const envelope: ValidEnvelope = { header, items };
  if (eventId !== undefined) envelope.eventId = eventId;
  if (sentAt !== undefined) envelope.sentAt = sentAt;
  return { ok: true, envelope };
}

/**
 * Item types only Relay itself may make (`ItemType::is_internal`, relay-server/src/envelope/item.rs):
 * its envelope endpoint refuses an envelope holding one (`BadStoreRequest::InternalEnvelope`).
 */
const INTERNAL_ITEM_TYPES: ReadonlySet<string> = new Set(['integration']);

/**
 * Relay's check of the envelope header's `origin` against the request (`EnvelopeHeaders::complete`
 * in relay-server/src/envelope/mod.rs; its test `test_parse_request_validate_origin`): the
 * request's origin is its `Origin` header, else its `Referer`, each only as an http(s) URL
 * (`parse_header_url`, extractors/request_meta.rs); an envelope `origin` that is set and differs,
 * URL for URL, is a 400. An `origin` that is not a URL fails Relay's header parse (400 too).
 * The reason, or undefined when Relay would go on.
 */
export function envelopeOriginProblem(
  envelopeOrigin: unknown,
  request: { origin?: string | undefined; referer?: string | undefined },
): string | undefined {
  if (envelopeOrigin == null) return undefined;
  const claimed = typeof envelopeOrigin === 'string' ? urlOf(envelopeOrigin) : undefined;
  if (!claimed) return 'invalid event envelope: invalid envelope header';
  const actual = httpUrlOf(request.origin) ?? httpUrlOf(request.referer);
  return claimed === actual
    ? undefined
    : 'invalid event envelope: origin header mismatch between envelope and request';
}

function urlOf(text: string): string | undefined {
  try {
    return new URL(text).href;
  } catch {
    return undefined;
  }
}

function httpUrlOf(header: string | undefined): string | undefined {
  const url = header === undefined ? undefined : urlOf(header);
  return url?.startsWith('http:') || url?.startsWith('https:') ? url : undefined;
}

function invalid(reason: string): ReadEnvelopeResult {
  return { ok: false, status: 400, reason };
}

/** What is left of each limit as the items are read (`Limit::apply` in sizes.rs). */
class Budget {
  private items = 0;
  private readonly left = new Map<Group, { count: number; totalBytes: number }>();

  /** Takes the item from its group's budget; the reason for a 413 when it does not fit. */
  take(item: EnvelopeItem): string | undefined {
    const type = item.header.type as string;
    this.items += 1;
    const group = groupOf(item);
    const overflow = `envelope exceeded size limits for type '${type}'`;
    if (!group)
      return this.items > MAX_ITEMS ? `${overflow}: more than ${MAX_ITEMS} items` : undefined;
    const limits = ENVELOPE_LIMITS[group];
    const left = this.left.get(group) ?? { count: limits.count, totalBytes: limits.totalBytes };
    const size = item.payload.length;
    const itemCount = CONTAINER_TYPES.has(String(item.header.content_type))
      ? Math.max(Number(item.header.item_count ?? 1), 1)
      : 1;
    if (
      Math.floor(size / itemCount) > limits.itemBytes ||
      left.count < 1 ||
      left.totalBytes < size
    ) {
      return overflow;
    }
    this.left.set(group, { count: left.count - 1, totalBytes: left.totalBytes - size });
    return undefined;
  }
}

function groupOf(item: EnvelopeItem): Group | undefined {
  const type = item.header.type as string;
  if (type === 'span') {
    return CONTAINER_TYPES.has(String(item.header.content_type)) ? 'spanContainer' : 'span';
  }
  return Object.hasOwn(GROUP_OF, type) ? GROUP_OF[type] : undefined;
}

// Event ids and times as Relay (Sentry's ingest) reads them, shared by the envelope reader and
// the event and session normalisers. Pure.
//
// - Event ids are UUIDs: Relay's `EventId` parses with the `uuid` crate, which takes the simple
//   (32 hex digits), hyphenated, braced and urn forms, any case, and writes 32 lower-case hex
//   digits. https://github.com/getsentry/relay/blob/master/relay-event-schema/src/protocol/event.rs
// - Envelope `sent_at` and session `started`/`timestamp` are chrono `DateTime<Utc>`: RFC 3339
//   with a zone (`Z`, `+01:00`, `+0100`).
// - Event timestamps are Relay's `Timestamp`: seconds since the epoch as a number, or a datetime
//   string whose zone may be missing (UTC then).
//   https://github.com/getsentry/relay/blob/master/relay-event-schema/src/protocol/types.rs

const SIMPLE = /^[0-9a-f]{32}$/i;
const HYPHENATED = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i;

/** 32 lower-case hex digits for any UUID form Relay accepts, else undefined. */
export function normaliseEventId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (SIMPLE.test(value)) return value.toLowerCase();
  let text = value;
  if (text.length === 38 && text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1);
  else if (text.length === 45 && text.slice(0, 9).toLowerCase() === 'urn:uuid:') {
    text = text.slice(9);
  }
  const parts = HYPHENATED.exec(text);
  return parts ? parts.slice(1).join('').toLowerCase() : undefined;
}

/** A new random event id, as Relay makes one for an envelope that has none. */
export function newEventId(): string {
  return crypto.randomUUID().replaceAll('-', '');
}

const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;

/** Milliseconds since the epoch of an RFC 3339 datetime; `zoneRequired` as chrono's `DateTime`. */
export function parseDateTime(value: unknown, zoneRequired = true): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = DATETIME.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, zoneHours, zoneMinutes] = match;
  const hasZone = zulu !== undefined || sign !== undefined;
  if (zoneRequired && !hasZone) return undefined;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) {
    return undefined;
  }
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  const offset = sign
    ? (sign === '-' ? -1 : 1) * (Number(zoneHours) * 60 + Number(zoneMinutes))
    : 0;
  const millis = fraction ? Number(`0.${fraction}`) * 1000 : 0;
  return Date.UTC(year, month - 1, day, hour, minute, second) + millis - offset * 60_000;
}

/** Seconds since the epoch of an event timestamp, or undefined when Relay would reject it. */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const millis = parseDateTime(value, false);
  return millis === undefined ? undefined : millis / 1000;
}

/** A parsed JSON value that is an object (not null, not an array): what envelope lines must be. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
