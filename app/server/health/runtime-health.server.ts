// Relative, not #app/…: the pages benchmark's minimal Start app builds this file without our
// aliases (bench/pages/build-minimal.mjs).
import { type EventLoopWindow, eventLoopWindows } from './event-loop-windows.server';

/**
 * What the home page shows of the server: how late its timers ran in one window of the
 * process's event-loop monitor (./event-loop-windows.server.ts), and for how long it has run.
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
