/**
 * The process's event-loop monitor: one histogram and one timer for the whole process, measuring
 * timer lag in back-to-back windows of WINDOW_MS, whoever reads it: the lag monitor that load
 * shedding and /health read, and the home page's runtime figures. Nobody's request decides how
 * long anything is measured, and reading costs nothing: the last complete window is kept until
 * the next one ends. A reader that wants a window taken after it asked (the home page, which
 * streams it in) waits for the end of the next whole window, one promise shared by every such
 * reader. A leaf: it imports nothing of the modules that read it.
 * Relative imports: the pages benchmark's minimal Start app builds this file without our
 * aliases (bench/pages/build-minimal.mjs).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { processShared } from '../../start-1.120/process-shared.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'event-loop-windows': EventLoopWindows;
    'event-loop-lag': LagMonitor;
  }
}

/** One window: a quarter of a second, short enough for load shedding to react within it. */
export const WINDOW_MS = 250;
/** The histogram's own timer period; its samples are that period plus the delay on top. */
const RESOLUTION_MS = 10;

/** How late timers ran in one window, beyond their due time, in ms. */
export interface EventLoopWindow {
  /** When the window began, on `performance.now()`'s clock: load shedding judges it by that. */
  startedAt: number;
  /** How long the window really lasted (its own timer can be late too). */
  windowMs: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  /** The longest the loop was held in the window: the one stall a mean and a p99 hide. */
  maxMs: number;
}

export interface EventLoopWindows {
  /** The last complete window; undefined until the first one has ended. */
  last(): EventLoopWindow | undefined;
  /**
   * A window that begins after this call, once it has ended: between one and two windows from
   * now. Every caller until the current window ends gets the same promise.
   */
  next(): Promise<EventLoopWindow>;
  /** Called with every window as it ends. */
  onWindow(listener: (window: EventLoopWindow) => void): void;
}

export function eventLoopWindows(): EventLoopWindows {
  return processShared('event-loop-windows', startWindows);
}

interface Pending {
  promise: Promise<EventLoopWindow>;
  resolve(window: EventLoopWindow): void;
}

function pending(): Pending {
  let resolve: (window: EventLoopWindow) => void = () => {};
  const promise = new Promise<EventLoopWindow>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

function startWindows(): EventLoopWindows {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const listeners: Array<(window: EventLoopWindow) => void> = [];
  let last: EventLoopWindow | undefined;
  let startedAt = performance.now();
  // Ends with the window in progress: for those who asked during the one before it.
  let endingNow: Pending | undefined;
  // Ends with the window after the one in progress: for those asking now.
  let endingNext: Pending | undefined;

  const timer = setInterval(() => {
    const now = performance.now();
    const began = startedAt;
    const windowMs = now - began;
    startedAt = now;
    const lag = (nanoseconds: number) =>
      Math.round(Math.max(0, nanoseconds / 1e6 - RESOLUTION_MS) * 100) / 100;
    // No sample at all: the loop was blocked for the whole window, as late as this timer.
    const blocked = Math.round(Math.max(0, windowMs - WINDOW_MS) * 100) / 100;
    const window: EventLoopWindow =
      histogram.count > 0
        ? {
            startedAt: began,
            windowMs: Math.round(windowMs),
            meanMs: lag(histogram.mean),
            p50Ms: lag(histogram.percentile(50)),
            p99Ms: lag(histogram.percentile(99)),
            maxMs: lag(histogram.max),
          }
        : {
            startedAt: began,
            windowMs: Math.round(windowMs),
            meanMs: blocked,
            p50Ms: blocked,
            p99Ms: blocked,
            maxMs: blocked,
          };
    histogram.reset();
    last = window;
    endingNow?.resolve(window);
    endingNow = endingNext;
    endingNext = undefined;
    for (const listener of listeners) listener(window);
  }, WINDOW_MS);
  // The monitor never keeps the process alive (a test, a drain at shutdown).
  timer.unref();

  return {
    last: () => last,
    next: () => {
      endingNext ??= pending();
      return endingNext.promise;
    },
    onWindow: (listener) => {
      listeners.push(listener);
    },
  };
}

/**
 * When to turn page requests away: pure policy over the measured event-loop lag, so the
 * thresholds are tested without load. Why lag, and the default: docs/decisions/0601-load-shedding.md.
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
 * Shedding after a window of lag: only a window that began once the server was warm is judged
 * (`warmAt`, on the windows' clock; undefined while the server warms up). The server's own start
 * (loading its modules, decoding its source maps, the warm-up renders in ../startup.server.ts) held
 * the loop for 100-750 ms a window, and a window that had any of it in it turned the first
 * visitors away. Decision 1030.
 */
export function sheddingAfterWindow(input: {
  shedding: boolean;
  window: { startedAt: number; meanMs: number };
  warmAt: number | undefined;
  thresholdMs: number;
}): boolean {
  const { shedding, window, warmAt, thresholdMs } = input;
  if (warmAt === undefined || window.startedAt < warmAt) return false;
  return nextShedding({ shedding, lagMs: window.meanMs, thresholdMs });
}

/**
 * The process's event-loop lag, read from the monitor's windows (`eventLoopWindows`): how late a timer runs, which is how long any new
 * request waits before its first line of code. One per process, shared by every module copy
 * (app/start-1.120/process-shared.server.ts), started by whichever asks first.
 */
export interface LagMonitor {
  /** The mean lag of the last window, in ms. */
  lagMs(): number;
  /** Whether new page requests are being turned away now. */
  shedding(): boolean;
  /**
   * The server is warm and about to take requests: windows that begin from now on are judged.
   * Until then nothing is shed (`vinxi dev`, which sheds no page, never calls it).
   */
  warm(): void;
}

export function lagMonitor(thresholdMs: number): LagMonitor {
  return processShared('event-loop-lag', () => startMonitor(thresholdMs));
}

function startMonitor(thresholdMs: number): LagMonitor {
  let lagMs = 0;
  let shedding = false;
  let warmAt: number | undefined;
  eventLoopWindows().onWindow((window) => {
    // The mean, not the maximum: one garbage collection must not turn visitors away.
    lagMs = window.meanMs;
    shedding = sheddingAfterWindow({ shedding, window, warmAt, thresholdMs });
  });
  return {
    lagMs: () => lagMs,
    shedding: () => shedding,
    warm: () => {
      warmAt ??= performance.now();
    },
  };
}

/**
 * What the home page shows of the server: how late its timers ran in one window of the
 * process's event-loop monitor (`eventLoopWindows`), and for how long it has run.
 * Nothing that helps an attacker more than a visitor: no Node version, memory or paths.
 */
export interface RuntimeHealth {
  /** How long the window lasted, in ms. */
  windowMs: number;
  eventLoopDelayP50Ms: number;
  eventLoopDelayP99Ms: number;
  /** The window's longest delay: a stall of the loop, however short the rest. */
  eventLoopDelayMaxMs: number;
  uptimeSeconds: number;
}

function healthOf(window: EventLoopWindow): RuntimeHealth {
  return {
    windowMs: window.windowMs,
    eventLoopDelayP50Ms: window.p50Ms,
    eventLoopDelayP99Ms: window.p99Ms,
    eventLoopDelayMaxMs: window.maxMs,
    uptimeSeconds: Math.round(process.uptime()),
  };
}

/** The last complete window, at once (only a server's first quarter second waits for one). */
export async function latestRuntimeHealth(): Promise<RuntimeHealth> {
  const windows = eventLoopWindows();
  return healthOf(windows.last() ?? (await windows.next()));
}

/**
 * A window measured from now on: the home page streams it in after its shell, between a
 * quarter and half a second later, every page view in the meantime waiting on the same one.
 */
export async function nextRuntimeHealth(): Promise<RuntimeHealth> {
  return healthOf(await eventLoopWindows().next());
}
