/**
 * Which Sentry project a report may go to: the query (o, p, r) parsed, then judged against the
 * allow-list of DSNs. Pure.
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
