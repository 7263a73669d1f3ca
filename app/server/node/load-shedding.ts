/**
 * When to turn page requests away: pure policy over the measured event-loop lag, so the
 * thresholds are tested without load. Why lag, and the default: docs/decisions/0601-load-shedding.md.
 */

/** What the 503 asks a client to wait, in seconds. */
export const SHED_RETRY_AFTER_SECONDS = 2;

/**
 * Hysteresis: shedding starts when the lag passes the threshold and stops only once it is
 * back under half of it, so a server at the edge does not flip on every sample.
 */
export function nextShedding(state: {
  shedding: boolean;
  lagMs: number;
  thresholdMs: number;
}): boolean {
  const { shedding, lagMs, thresholdMs } = state;
  if (thresholdMs <= 0) return false;
  return shedding ? lagMs >= thresholdMs / 2 : lagMs > thresholdMs;
}

/**
 * What a request costs the server. `file`: sent as it is from the public folder or the client
 * build (cheap, and a page half-loaded is worse than none: never held back). `server-function`:
 * a call of a hydrated page, waits for its turn but is not shed for lag (the page would show
 * an error). `page`: a server render, shed first. /health and the tunnel are answered before.
 */
export type RequestKind = 'file' | 'server-function' | 'page';

export function requestKind(
  method: string | undefined,
  path: string,
  publicFiles: ReadonlySet<string>,
): RequestKind {
  if (path.startsWith('/_server')) return 'server-function';
  const read = method === 'GET' || method === 'HEAD';
  if (read && (path.startsWith('/_build/') || publicFiles.has(path))) return 'file';
  return 'page';
}
