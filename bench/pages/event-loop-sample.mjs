// app/server/health/runtime-health.server.ts in plain JS for the bare React server (no build step):
// callers at the same time share one sample, so the deferred section waits as the app's does.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const inFlight = new Map();
const round = (value) => Math.round(value * 100) / 100;

export function sampleEventLoop(sampleMs) {
  let sample = inFlight.get(sampleMs);
  if (!sample) {
    sample = takeSample(sampleMs).finally(() => inFlight.delete(sampleMs));
    inFlight.set(sampleMs, sample);
  }
  return sample;
}

async function takeSample(sampleMs) {
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
