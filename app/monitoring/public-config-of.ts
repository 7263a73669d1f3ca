import { isDsn, parseDsn, tunnelUrlOf } from './dsn';
import type { PublicConfig } from './public-config';

export interface PublicConfigSource {
  /** The browser DSN: SENTRY_DSN, or the local inbox DSN without it. */
  dsn: string;
  environment: string;
  release: string;
  tracesSampleRate: number;
}

/** Pure: what the browser gets to know. Only these five values ever leave the server. */
export function publicConfigOf(source: PublicConfigSource): PublicConfig {
  const parsed = parseDsn(source.dsn);
  if (!isDsn(parsed)) throw new Error(`Browser DSN is not a Sentry DSN (${parsed.error})`);
  return {
    dsn: source.dsn,
    tunnel: tunnelUrlOf(parsed),
    environment: source.environment,
    release: source.release,
    tracesSampleRate: source.tracesSampleRate,
  };
}
