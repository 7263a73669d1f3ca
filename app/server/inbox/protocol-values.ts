/**
 * Values as clients send them to the inbox: event ids and times as Relay reads them, whether a
 * JSON value is a record, and strings made well formed before a page renders them.
 */

/**
 * Event ids and times as Relay (Sentry's ingest) reads them, shared by the envelope reader and
 * the event and session normalisers. Pure.
 *
 * - Event ids are UUIDs: Relay's `EventId` parses with the `uuid` crate, which takes the simple
 *   (32 hex digits), hyphenated, braced and urn forms, any case, and writes 32 lower-case hex
 *   digits. https://github.com/getsentry/relay/blob/master/relay-event-schema/src/protocol/event.rs
 * - Envelope `sent_at` and session `started`/`timestamp` are chrono `DateTime<Utc>`: RFC 3339
 *   with a zone (`Z`, `+01:00`, `+0100`).
 * - Event timestamps are Relay's `Timestamp`: seconds since the epoch as a number, or a datetime
 *   string whose zone may be missing (UTC then).
 *   https://github.com/getsentry/relay/blob/master/relay-event-schema/src/protocol/types.rs
 */

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

/**
 * JSON values as clients send them to the inbox: whether one is a record (what envelope lines
 * must be), and strings made well formed before a page renders them.
 */

/**
 * Stored events are whatever a client sent, and JSON may carry a lone UTF-16 surrogate
 * (`"\ud800"`). Rendered into HTML it becomes U+FFFD on the wire, while the page's hydration
 * data keeps the surrogate, so React finds different text and fails hydration (#418), and the
 * browser reports that as a new error on every view. Every string the inbox pages receive goes
 * through here first: a lone surrogate becomes U+FFFD on both sides (String#toWellFormed).
 * Pure.
 */

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

/** A parsed JSON value that is an object (not null, not an array): what envelope lines must be. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
