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
 * Requests that may be shed: documents (server-rendered pages). Never /health and the tunnel
 * (answered before this check), files served as they are (`publicFiles`, and the client build
 * under /_build/: cheap, and a page half-loaded is worse) or server functions (a hydrated
 * page's navigation would fail and report an error).
 */
export function isSheddable(
  method: string | undefined,
  path: string,
  publicFiles: ReadonlySet<string>,
): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (path.startsWith('/_build/') || path.startsWith('/_server')) return false;
  return !publicFiles.has(path);
}
