import { monitorEventLoopDelay } from 'node:perf_hooks';
// Relative, not #app/…: the pages benchmark's minimal Start app builds this file without our
// aliases (bench/pages/build-minimal.mjs).
import { processShared } from '../process-shared.server';

export interface RuntimeHealth {
  sampledMs: number;
  eventLoopDelayP50Ms: number;
  eventLoopDelayP99Ms: number;
  uptimeSeconds: number;
  rssMiB: number;
  heapUsedMiB: number;
  nodeVersion: string;
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * Watches the event loop for `sampleMs` and reports how late timers ran: the figure that
 * tells whether this server is keeping up. Real work that takes time, which is why the home
 * page defers it and streams the rest of the page first.
 */
export function sampleEventLoop(sampleMs: number): Promise<RuntimeHealth> {
  // Callers asking at the same time share one sample: the function is public, and a histogram
  // and a timer per caller would let a crowd of requests add load of their own.
  let sample = inFlight.get(sampleMs);
  if (!sample) {
    sample = takeSample(sampleMs).finally(() => inFlight.delete(sampleMs));
    inFlight.set(sampleMs, sample);
  }
  return sample;
}

/** The samples being taken, by length: shared by every copy of this module in the build. */
const inFlight = processShared(
  'event-loop-samples',
  () => new Map<number, Promise<RuntimeHealth>>(),
);

async function takeSample(sampleMs: number): Promise<RuntimeHealth> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  await new Promise((resolve) => setTimeout(resolve, sampleMs));
  histogram.disable();
  const memory = process.memoryUsage();
  return {
    sampledMs: sampleMs,
    eventLoopDelayP50Ms: round(histogram.percentile(50) / 1e6),
    eventLoopDelayP99Ms: round(histogram.percentile(99) / 1e6),
    uptimeSeconds: Math.round(process.uptime()),
    rssMiB: round(memory.rss / 2 ** 20),
    heapUsedMiB: round(memory.heapUsed / 2 ** 20),
    nodeVersion: process.version,
  };
}
