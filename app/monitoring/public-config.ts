/**
 * The small public slice of the server's configuration that the browser needs to report
 * errors. It reaches the page in the site config (app/site-config.ts) at request time, never
 * baked in at build time, so a changed SENTRY_DSN takes effect on restart.
 */
import * as v from 'valibot';
import { isDsn, parseDsn, tunnelUrlOf } from './dsn';

export const PublicConfigSchema = v.object({
  /** The DSN the browser SDK reports to (SENTRY_DSN, or the local inbox DSN). */
  dsn: v.string(),
  /** The same-origin tunnel URL for that DSN. */
  tunnel: v.string(),
  environment: v.string(),
  release: v.string(),
  tracesSampleRate: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
  /** The Spotlight sidecar that gets a copy of each envelope: only in development, when on. */
  spotlight: v.optional(v.string()),
});

export type PublicConfig = v.InferOutput<typeof PublicConfigSchema>;

export interface PublicConfigSource {
  /** The browser DSN: SENTRY_DSN, or the local inbox DSN without it. */
  dsn: string;
  environment: string;
  release: string;
  tracesSampleRate: number;
  /** SENTRY_SPOTLIGHT's sidecar URL, in development only. */
  spotlight?: string;
}

/**
 * Pure: what the browser gets to know. Only these five values ever leave the server, and the
 * Spotlight sidecar's URL when it is on (development only).
 */
export function publicConfigOf(source: PublicConfigSource): PublicConfig {
  const parsed = parseDsn(source.dsn);
  if (!isDsn(parsed)) throw new Error(`Browser DSN is not a Sentry DSN (${parsed.error})`);
  return {
    dsn: source.dsn,
    tunnel: tunnelUrlOf(parsed),
    environment: source.environment,
    release: source.release,
    tracesSampleRate: source.tracesSampleRate,
    ...(source.spotlight ? { spotlight: source.spotlight } : {}),
  };
}
