/**
 * The machine's figures for `WEB_CONCURRENCY=auto` (./worker-count.ts): the cores this process
 * may run on, and the tightest CPU quota of its cgroup and the cgroup's parents.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { cgroupCpuDirsOf, cpuQuotaOf } from './worker-count';

export function availableCores(): { cores: number; cpuQuota: number | undefined } {
  const { v2, v1 } = cgroupCpuDirsOf(readIfThere('/proc/self/cgroup') ?? '');
  const quotas = [
    ...v2.map((dir) => cpuQuotaOf({ cpuMax: readIfThere(`${dir}/cpu.max`) })),
    ...v1.map((dir) =>
      cpuQuotaOf({
        cfsQuotaUs: readIfThere(`${dir}/cpu.cfs_quota_us`),
        cfsPeriodUs: readIfThere(`${dir}/cpu.cfs_period_us`),
      }),
    ),
  ].filter((quota): quota is number => quota !== undefined);
  return {
    cores: availableParallelism(),
    cpuQuota: quotas.length > 0 ? Math.min(...quotas) : undefined,
  };
}

function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // not Linux, or no such cgroup controller: no quota known
  }
}
