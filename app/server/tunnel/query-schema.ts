/**
 * The tunnel's query, `?o=ORG&p=PROJECT[&r=REGION]`, validated before the body is touched.
 * Framework-free: a string in, a target or a reason out.
 */
import * as v from 'valibot';
import type { TunnelTarget } from '#app/monitoring/dsn';

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
