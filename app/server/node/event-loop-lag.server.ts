/**
 * The process's event-loop lag, sampled continuously: how late a timer runs, which is how long
 * any new request waits before its first line of code. One monitor per process, shared by
 * every module copy (process-shared.server.ts), started by whichever asks first.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { processShared } from '#app/server/process-shared.server';
import { nextShedding } from './load-shedding';

/** The histogram's own timer period; its samples are the extra delay on top of it. */
const RESOLUTION_MS = 10;
/** One reading per window: short enough to react within a fraction of a second. */
const WINDOW_MS = 250;

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
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let lagMs = 0;
  let shedding = false;
  const timer = setInterval(() => {
    // The mean, not the maximum: one garbage collection must not turn visitors away.
    lagMs = histogram.count > 0 ? Math.max(0, histogram.mean / 1e6 - RESOLUTION_MS) : 0;
    histogram.reset();
    shedding = nextShedding({ shedding, lagMs, thresholdMs });
  }, WINDOW_MS);
  timer.unref();
  return { lagMs: () => lagMs, shedding: () => shedding };
}
