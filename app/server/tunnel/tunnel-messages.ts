/**
 * The tunnel's words: its log lines and the reasons it answers with. Pure, so that what an
 * operator reads is tested as a table (tests/unit/server/tunnel/tunnel-messages.test.ts).
 */
import type { TunnelTarget } from '#app/monitoring/dsn';

/** One log line per rejected or failed request: `[tunnel] STATUS reason`. */
export function tunnelLogLine(status: number, reason: string): string {
  return `[tunnel] ${status} ${reason}`;
}

/**
 * The rate-limit kind of a tunnel log line (app/server/logging/rate-limited-log.ts): its status,
 * so that a flood of 400s cannot hide the first 502 from Sentry. `[tunnel] 403 …` is
 * `tunnel 403`; a line with no status is `tunnel`.
 */
export function tunnelLogKind(line: string): string {
  const status = /^\[tunnel\] (\d{3}) /.exec(line)?.[1];
  return status ? `tunnel ${status}` : 'tunnel';
}

/** A thrown value's message, for the log only: it may name server paths. */
export function errorMessageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A bug caught before it could take the server down: logged, answered 500. */
export function internalErrorLine(error: unknown): string {
  return tunnelLogLine(500, `internal error: ${errorMessageOf(error)}`);
}

/** The 403 reason when no allowed DSN has the query's organisation, project and region. */
export function noAllowedDsnReason({ o, p, r }: TunnelTarget): string {
  return `no allowed DSN for o=${o} p=${p}${r ? ` r=${r}` : ''}`;
}
