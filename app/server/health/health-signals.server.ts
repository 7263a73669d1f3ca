/** The process's health signals (./health-signals.ts), shared by every module copy. */
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { processShared } from '#app/server/process-shared.server';
import { createHealthSignals, type HealthSignals } from './health-signals';

export function healthSignals(): HealthSignals {
  return processShared('health-signals', () =>
    createHealthSignals({
      now: Date.now,
      onStart: (trouble, detail) =>
        warnLimited(`health ${trouble}`, `[health] degraded: ${trouble}: ${detail}`),
    }),
  );
}
