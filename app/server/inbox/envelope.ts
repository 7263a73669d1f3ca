/**
 * Splits a Sentry envelope into its header and items, over bytes, so binary payloads
 * (attachments, replay recordings) pass through untouched. Format:
 * https://develop.sentry.dev/sdk/data-model/envelopes/
 *
 *   <envelope header JSON>\n
 *   <item header JSON>\n
 *   <payload: `length` bytes when the item header names a length, else up to the next \n>\n
 *   …
 *
 * Lenient on purpose: the inbox shows what arrived, so a broken item ends the parse
 * with the items read so far instead of throwing.
 */
import { isRecord } from '#app/server/is-record';

export interface EnvelopeItem {
  header: Record<string, unknown>;
  payload: Uint8Array;
  /** The item header line as it arrived, so an item passed on unchanged stays byte-identical. */
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

const NEWLINE = 0x0a;
const NEWLINE_BYTES = Uint8Array.of(NEWLINE);
const decoder = new TextDecoder();
const encoder = new TextEncoder();

export function splitEnvelope(bytes: Uint8Array): Envelope {
  const first = readLine(bytes, 0);
  const header = parseObject(first.line);
  if (!header) return { header: {}, items: [], problem: 'envelope header is not a JSON object' };
  const items: EnvelopeItem[] = [];
  let offset = first.next;
  while (offset < bytes.length) {
    const headerLine = readLine(bytes, offset);
    // Blank lines between items carry nothing (some SDKs end with an extra \n).
    if (headerLine.line.length === 0) {
      offset = headerLine.next;
      continue;
    }
    const itemHeader = parseObject(headerLine.line);
    if (!itemHeader) {
      const problem = `item ${items.length + 1} header is not JSON`;
      return { header, items, problem, rest: bytes.subarray(offset) };
    }
    const itemStart = offset;
    offset = headerLine.next;
    const length = itemHeader.length;
    let payload: Uint8Array;
    if (typeof length === 'number' && Number.isInteger(length) && length >= 0) {
      if (offset + length > bytes.length) {
        const problem = `item ${items.length + 1} is shorter than its length`;
        return { header, items, problem, rest: bytes.subarray(itemStart) };
      }
      payload = bytes.subarray(offset, offset + length);
      offset += length;
      // The newline after a sized payload is optional.
      if (bytes[offset] === NEWLINE) offset += 1;
    } else {
      const payloadLine = readLine(bytes, offset);
      payload = payloadLine.line;
      offset = payloadLine.next;
    }
    items.push({ header: itemHeader, payload, headerLine: headerLine.line });
  }
  return { header, items };
}

/**
 * Bytes again: the header line as given, then each item (its own header line unless
 * `header` was replaced), then any unread rest. Payloads are always followed by a newline,
 * which the format allows after a sized payload and needs after an unsized one.
 */
export function joinEnvelope(
  headerLine: Uint8Array,
  items: EnvelopeItem[],
  rest?: Uint8Array,
): Uint8Array {
  const parts: Uint8Array[] = [headerLine, NEWLINE_BYTES];
  for (const item of items) {
    parts.push(item.headerLine ?? encoder.encode(JSON.stringify(item.header)), NEWLINE_BYTES);
    parts.push(item.payload, NEWLINE_BYTES);
  }
  if (rest) parts.push(rest);
  return Buffer.concat(parts);
}

/** The envelope header line as it arrived. */
export function headerLineOf(bytes: Uint8Array): Uint8Array {
  return readLine(bytes, 0).line;
}

/** The item payload as JSON, or undefined when it is not JSON. */
export function payloadJson(item: EnvelopeItem): unknown {
  try {
    return JSON.parse(decoder.decode(item.payload));
  } catch {
    return undefined;
  }
}

function readLine(bytes: Uint8Array, start: number): { line: Uint8Array; next: number } {
  const end = bytes.indexOf(NEWLINE, start);
  if (end === -1) return { line: bytes.subarray(start), next: bytes.length };
  return { line: bytes.subarray(start, end), next: end + 1 };
}

function parseObject(line: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(line));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
