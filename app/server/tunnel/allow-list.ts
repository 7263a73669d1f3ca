/**
 * Which reports the tunnel lets through, in the order it asks: the query's project (o, p, r)
 * against the allow-list of DSNs, then the envelope's header line against the query.
 */
import * as v from 'valibot';
import {
  type Dsn,
  envelopeUrlOf,
  formatDsn,
  isDsn,
  parseDsn,
  sameDsn,
  type TunnelTarget,
  tunnelTargetOf,
} from '#app/monitoring/dsn';
import { isRecord } from '#app/server/inbox/envelope';

/**
 * Which envelopes the tunnel accepts and where they go. Built once from the configured DSNs,
 * so a request costs one map lookup and, usually, one string comparison.
 * Framework-free; the DSN rules themselves live in app/monitoring/dsn.ts.
 */
export interface Destination {
  dsn: Dsn;
  target: TunnelTarget;
  /** Sentry's envelope endpoint for this DSN: never built from request input. */
  envelopeUrl: URL;
  /** Stored in the local inbox instead of forwarded (local inbox mode). */
  local: boolean;
  /** The DSN as the SDK usually writes it, for the fast exact-string check. */
  canonical: string;
}

export interface AllowList {
  /** The allowed DSNs the query's (o, p, r) names: usually one, several only for same-looking self-hosted DSNs. */
  candidatesFor(target: TunnelTarget): readonly Destination[] | undefined;
  /** The candidate whose DSN is exactly the envelope header's `dsn`, if any. */
  match(candidates: readonly Destination[], headerDsn: string): Destination | undefined;
}

const keyOf = (target: TunnelTarget) => `${target.o}/${target.p}/${target.r ?? ''}`;

/** `localInboxDsn`: the DSN whose envelopes are stored locally instead of forwarded. */
export function createAllowList(dsns: readonly Dsn[], localInboxDsn?: string): AllowList {
  const parsedLocal = localInboxDsn === undefined ? undefined : parseDsn(localInboxDsn);
  const localDsn = parsedLocal && isDsn(parsedLocal) ? parsedLocal : undefined;
  const byTarget = new Map<string, Destination[]>();
  for (const dsn of dsns) {
    const target = tunnelTargetOf(dsn);
    const destination: Destination = {
      dsn,
      target,
      envelopeUrl: new URL(envelopeUrlOf(dsn)),
      local: localDsn !== undefined && sameDsn(dsn, localDsn),
      canonical: formatDsn(dsn),
    };
    const key = keyOf(target);
    const list = byTarget.get(key) ?? [];
    if (!list.some((known) => sameDsn(known.dsn, dsn))) list.push(destination);
    byTarget.set(key, list);
  }
  return {
    candidatesFor: (target) => byTarget.get(keyOf(target)),
    match(candidates, headerDsn) {
      const exact = candidates.find((candidate) => candidate.canonical === headerDsn);
      if (exact) return exact;
      // Spelled differently (trailing slash, upper-case host): compare the parsed parts.
      const parsed = parseDsn(headerDsn);
      if (!isDsn(parsed)) return undefined;
      return candidates.find((candidate) => sameDsn(candidate.dsn, parsed));
    },
  };
}

/**
 * The tunnel's query, `?o=ORG&p=PROJECT[&r=REGION]`, validated before the body is touched.
 * Framework-free: a string in, a target or a reason out.
 */
const digits = (name: string) =>
  v.pipe(
    v.string(`query parameter "${name}" is required`),
    v.regex(/^\d{1,20}$/, `query parameter "${name}" must be 1 to 20 decimal digits`),
  );

export const TunnelQuerySchema = v.object({
  o: digits('o'),
  p: digits('p'),
  r: v.optional(
    v.pipe(v.string(), v.regex(/^[a-z]{2}$/, 'query parameter "r" must be two lowercase letters')),
  ),
});

export type TunnelQueryResult = { ok: true; target: TunnelTarget } | { ok: false; reason: string };

/** Parses the query part of a request URL (everything after the first `?`, or the whole URL). */
export function parseTunnelQuery(url: string): TunnelQueryResult {
  const mark = url.indexOf('?');
  const params = new URLSearchParams(mark === -1 ? '' : url.slice(mark + 1));
  const result = v.safeParse(TunnelQuerySchema, {
    o: params.get('o') ?? undefined,
    p: params.get('p') ?? undefined,
    r: params.get('r') ?? undefined,
  });
  if (!result.success) return { ok: false, reason: result.issues[0].message };
  const { o, p, r } = result.output;
  return { ok: true, target: r === undefined ? { o, p } : { o, p, r } };
}

/**
 * The header line must end within this many bytes, as in Sentry's own tunnel. The header line
 * is the first line of a Sentry envelope, a JSON object that names the DSN it is meant for
 * (https://develop.sentry.dev/sdk/data-model/envelopes/): found in the bytes as they arrive,
 * then checked against the query's DSN before anything is forwarded or stored. Only the header
 * line is ever decoded, never the items.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

const NEWLINE = 0x0a;

const NO_DSN = 'envelope header has no dsn';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export type EnvelopeHeader =
  | { ok: true; dsn: string; eventId?: string; origin?: unknown }
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
  const { dsn, event_id: eventId, origin } = json;
  if (typeof dsn !== 'string' || dsn === '') return { ok: false, reason: NO_DSN };
  const header: EnvelopeHeader =
    typeof eventId === 'string' ? { ok: true, dsn, eventId } : { ok: true, dsn };
  // Local inbox mode checks it as Relay does (envelopeOriginProblem); Sentry checks its own.
  if (origin != null) header.origin = origin;
  return header;
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
