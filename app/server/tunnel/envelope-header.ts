/**
 * The first line of a Sentry envelope: a JSON object that names the DSN it is meant for.
 * https://develop.sentry.dev/sdk/data-model/envelopes/
 * Framework-free: works on bytes; only the header line is ever decoded, never the items.
 */
import { isRecord } from '../is-record';

/** The header line must end within this many bytes, as in Sentry's own tunnel. */
export const MAX_HEADER_BYTES = 64 * 1024;

const NEWLINE = 0x0a;

const NO_DSN = 'envelope header has no dsn';

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
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(line.buffer, line.byteOffset, line.length).toString('utf8'));
  } catch {
    return { ok: false, reason: 'envelope header is not JSON' };
  }
  if (!isRecord(json)) return { ok: false, reason: 'envelope header is not a JSON object' };
  // Two fields on the hot path of every envelope: plain checks (a schema library cost about a
  // microsecond an envelope here, more than the rest of the check; see docs/decisions/0102).
  const { dsn, event_id: eventId } = json;
  if (typeof dsn !== 'string' || dsn === '') return { ok: false, reason: NO_DSN };
  return typeof eventId === 'string' ? { ok: true, dsn, eventId } : { ok: true, dsn };
}
