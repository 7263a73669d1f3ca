/**
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
 * `readEnvelope` (read-envelope.ts) applies these rules strictly at ingest; `splitEnvelope` is
 * the lenient reading of stored bytes: a broken item ends the parse with the items read so far.
 */
import { isRecord } from '#app/server/inbox/well-formed';

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
  | { header: Record<string, unknown>; start: number; end: number }
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
  try {
    header = JSON.parse(strictDecoder.decode(bytes.subarray(start, end)));
  } catch {
    return { error: 'invalid' };
  }
  if (!isRecord(header)) return { error: 'invalid' };
  if (end < bytes.length && bytes[end] !== NEWLINE) return { error: 'newline' };
  return { header, start, end };
}

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
): { header: Record<string, unknown>; next: number } | { error: FramingError } {
  const read = readHeader(bytes, 0);
  if ('error' in read) {
    if (read.error === 'eof') return { error: FRAMING_ERRORS.missingHeader };
    if (read.error === 'newline') return { error: FRAMING_ERRORS.missingNewline };
    return { error: FRAMING_ERRORS.invalidHeader };
  }
  return { header: read.header, next: read.end + 1 };
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
  if (!isItemHeader(header)) return { error: FRAMING_ERRORS.invalidItemHeader };
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
