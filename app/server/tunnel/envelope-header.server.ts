/**
 * An envelope's header line: read from the request stream without reading the body, then
 * checked against the query's DSN before anything is forwarded or stored.
 */
import { isRecord } from '#app/server/inbox/well-formed';
import type { Exchange } from './exchange.server';

/**
 * The first line of a Sentry envelope: a JSON object that names the DSN it is meant for.
 * https://develop.sentry.dev/sdk/data-model/envelopes/
 * Framework-free: works on bytes; only the header line is ever decoded, never the items.
 */
/** The header line must end within this many bytes, as in Sentry's own tunnel. */
export const MAX_HEADER_BYTES = 64 * 1024;

const NEWLINE = 0x0a;

const NO_DSN = 'envelope header has no dsn';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export type EnvelopeHeader =
  | { ok: true; dsn: string; eventId?: string }
  | { ok: false; reason: string };

/**
 * Finds the end of the header line while chunks arrive. `push` answers the offset of the
 * newline inside the chunk just pushed, -1 for "not yet", or 'too-long' past MAX_HEADER_BYTES.
 */
export class HeaderLineScanner {
  private scanned = 0;

  push(chunk: Uint8Array): number | 'too-long' {
    const limit = MAX_HEADER_BYTES - this.scanned;
    const newline = chunk.indexOf(NEWLINE);
    if (newline !== -1 && newline <= limit) return newline;
    this.scanned += chunk.length;
    return this.scanned > MAX_HEADER_BYTES ? 'too-long' : -1;
  }
}

/** Parses the header line (without its newline). */
export function parseEnvelopeHeader(line: Uint8Array): EnvelopeHeader {
  if (line.length === 0) return { ok: false, reason: 'empty envelope header' };
  const text = Buffer.from(line.buffer, line.byteOffset, line.length).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'envelope header is not JSON' };
  }
  if (!isRecord(json)) return { ok: false, reason: 'envelope header is not a JSON object' };
  // JSON.parse keeps the last of two equal keys, other parsers (Sentry's Relay among them) may
  // keep the first: we would check one DSN and forward for another.
  if (mayRepeatDsn(text) && topLevelKeyCount(text, 'dsn') > 1) {
    return { ok: false, reason: 'envelope header has more than one dsn' };
  }
  // Two fields on the hot path of every envelope: plain checks (a schema library cost about a
  // microsecond an envelope here, more than the rest of the check; see docs/decisions/0102).
  const { dsn, event_id: eventId } = json;
  if (typeof dsn !== 'string' || dsn === '') return { ok: false, reason: NO_DSN };
  return typeof eventId === 'string' ? { ok: true, dsn, eventId } : { ok: true, dsn };
}

/**
 * A cheap test that rules out a repeated `dsn` key on nearly every header: a second key needs a
 * second literal "dsn", or a key spelled with \u escapes (the only escape that yields letters).
 */
function mayRepeatDsn(text: string): boolean {
  const first = text.indexOf('"dsn"');
  return (first !== -1 && text.indexOf('"dsn"', first + 5) !== -1) || text.includes('\\u');
}

/**
 * How many keys of the top-level object equal `name` once unescaped. `text` must already be
 * known to be a JSON object (JSON.parse accepted it), so only strings and nesting are tracked.
 */
export function topLevelKeyCount(text: string, name: string): number {
  let depth = 0;
  let expectKey = false;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = i + 1;
      while (text.charCodeAt(end) !== QUOTE) end += text.charCodeAt(end) === BACKSLASH ? 2 : 1;
      if (depth === 1 && expectKey) {
        if (JSON.parse(text.slice(i, end + 1)) === name) count += 1;
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth += 1;
      if (depth === 1) expectKey = true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth -= 1;
    } else if (c === 0x2c /* , */ && depth === 1) {
      expectKey = true;
    }
  }
  return count;
}

/**
 * Phase 1: the body up to the end of the envelope's header line, at most 64 KiB of it. The
 * chunks read stay on the exchange for the next phase, which sends or stores them first.
 */
/** Calls `onLine` with the header line, and whether the body has ended with it. */
export function readHeaderLine(
  exchange: Exchange,
  onLine: (line: Uint8Array, ended: boolean) => void,
): void {
  const { options } = exchange;
  const scanner = new HeaderLineScanner();
  const stop = exchange.read(
    (chunk) => {
      exchange.received += chunk.length;
      if (exchange.received > options.maxBytes) {
        exchange.rejectAndClose(413, `envelope over ${options.maxBytes} bytes`);
        return;
      }
      exchange.head.push(chunk);
      const newline = scanner.push(chunk);
      if (newline === 'too-long') {
        exchange.reject(400, 'no envelope header line within 64 KiB');
        return;
      }
      if (newline === -1) return;
      const { head, received } = exchange;
      const line =
        head.length === 1
          ? chunk.subarray(0, newline)
          : Buffer.concat(head).subarray(0, received - chunk.length + newline);
      stop();
      onLine(line, false);
    },
    () => {
      if (exchange.received === 0) {
        exchange.reject(400, 'empty envelope');
        return;
      }
      // A body without a newline is a header line alone (no items).
      stop();
      onLine(Buffer.concat(exchange.head), true);
    },
  );
}
