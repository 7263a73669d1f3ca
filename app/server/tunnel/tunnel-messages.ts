/**
 * The tunnel's words: its log lines and the reasons it answers with. Pure, so that what an
 * operator reads is tested as a table (tests/unit/server/tunnel/tunnel-messages.test.ts).
 */
import type { TunnelTarget } from '#app/monitoring/dsn';

/** One log line per rejected or failed request: `[tunnel] STATUS reason`. */
export function tunnelLogLine(status: number, reason: string): string {
  return `[tunnel] ${status} ${reason}`;
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
