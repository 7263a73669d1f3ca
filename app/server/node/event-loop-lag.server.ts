/**
 * The process's event-loop lag, read from the process-wide monitor's windows
 * (../health/event-loop-windows.server.ts): how late a timer runs, which is how long any new
 * request waits before its first line of code. One per process, shared by every module copy
 * (process-shared.server.ts), started by whichever asks first.
 */
import { eventLoopWindows } from '#app/server/health/event-loop-windows.server';
import { processShared } from '#app/server/process-shared.server';
import { nextShedding } from './load-shedding';

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
