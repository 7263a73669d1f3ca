/** The machine's figures for `WEB_CONCURRENCY=auto` (./worker-count.ts): cores and cgroup quota. */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { cpuQuotaOf } from './worker-count';

export function availableCores(): { cores: number; cpuQuota: number | undefined } {
  return {
    cores: availableParallelism(),
    cpuQuota: cpuQuotaOf({
      cpuMax: readIfThere('/sys/fs/cgroup/cpu.max'),
      cfsQuotaUs: readIfThere('/sys/fs/cgroup/cpu/cpu.cfs_quota_us'),
      cfsPeriodUs: readIfThere('/sys/fs/cgroup/cpu/cpu.cfs_period_us'),
    }),
  };
}

function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // not Linux, or no such cgroup controller: no quota known
  }
}
