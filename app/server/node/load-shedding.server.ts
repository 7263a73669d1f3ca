/**
 * Load shedding: while the event loop lags past LOAD_SHEDDING_LAG_MS new pages get a fast 503;
 * which requests count as pages, and the process's lag monitor that decides (decision 0601).
 */
import { eventLoopWindows } from '#app/server/health/event-loop.server';
import { processShared } from '#app/server/process-shared.server';

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

/**
 * The process's event-loop lag, read from the process-wide monitor's windows
 * (../health/event-loop-windows.server.ts): how late a timer runs, which is how long any new
 * request waits before its first line of code. One per process, shared by every module copy
 * (process-shared.server.ts), started by whichever asks first.
 */
export interface LagMonitor {
  /** The mean lag of the last window, in ms. */
  lagMs(): number;
  /** Whether new page requests are being turned away now. */
  shedding(): boolean;
}

export function lagMonitor(thresholdMs: number): LagMonitor {
  return processShared('event-loop-lag', () => startMonitor(thresholdMs));
}

function startMonitor(thresholdMs: number): LagMonitor {
  let lagMs = 0;
  let shedding = false;
  eventLoopWindows().onWindow((window) => {
    // The mean, not the maximum: one garbage collection must not turn visitors away.
    lagMs = window.meanMs;
    shedding = nextShedding({ shedding, lagMs, thresholdMs });
  });
  return { lagMs: () => lagMs, shedding: () => shedding };
}
