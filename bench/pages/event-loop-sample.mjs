// The app's event-loop monitor and the home page's runtime figures (both in
// app/server/health/event-loop.server.ts) in plain JS for the bare React server (no build
// step): one monitor in back-to-back windows, and the home page waits for the end of the next
// whole window, every page in the meantime on the same promise, as the app's does.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const WINDOW_MS = 250;
const RESOLUTION_MS = 10;
const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
histogram.enable();
const lag = (nanoseconds) => Math.round(Math.max(0, nanoseconds / 1e6 - RESOLUTION_MS) * 100) / 100;

let startedAt = performance.now();
let endingNow;
let endingNext;

function pending() {
  let resolve;
  const promise = new Promise((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

setInterval(() => {
  const now = performance.now();
  const health = {
    windowMs: Math.round(now - startedAt),
    eventLoopDelayP50Ms: histogram.count > 0 ? lag(histogram.percentile(50)) : 0,
    eventLoopDelayP99Ms: histogram.count > 0 ? lag(histogram.percentile(99)) : 0,
    uptimeSeconds: Math.round(process.uptime()),
  };
  startedAt = now;
  histogram.reset();
  endingNow?.resolve(health);
  endingNow = endingNext;
  endingNext = undefined;
}, WINDOW_MS).unref();

/** The runtime health of a window that begins after this call, once it has ended. */
export function nextRuntimeHealth() {
  endingNext ??= pending();
  return endingNext.promise;
}
