/**
 * How many worker processes `WEB_CONCURRENCY` asks for (docs/decisions/0620-one-worker-per-core.md).
 * `auto` is one per core this process may use: `os.availableParallelism()` (CPU affinity), and no
 * more than the cgroup's CPU quota, which Node 20 does not read (a container given 2 CPUs of a
 * 64-core host would start 64 workers). Pure but for `availableCores`, which reads the machine's
 * figures from `/proc` and `/sys/fs/cgroup`: the rest takes them as arguments.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export type WebConcurrency = 'auto' | number;

/** The quota in whole CPUs (rounded up), from cgroup v2 `cpu.max` or v1's quota and period. */
export function cpuQuotaOf(cgroup: {
  /** cgroup v2 `cpu.max`: `max 100000` (no quota) or `<quota> <period>`. */
  cpuMax?: string;
  /** cgroup v1 `cpu.cfs_quota_us` (-1: no quota) and `cpu.cfs_period_us`. */
  cfsQuotaUs?: string;
  cfsPeriodUs?: string;
}): number | undefined {
  const [quota, period] = cgroup.cpuMax
    ? cgroup.cpuMax.trim().split(/\s+/)
    : [cgroup.cfsQuotaUs?.trim(), cgroup.cfsPeriodUs?.trim()];
  const q = Number(quota);
  const p = Number(period);
  if (!Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return undefined;
  return Math.max(1, Math.ceil(q / p));
}

/**
 * The cgroup directories whose CPU quota binds this process, from `/proc/self/cgroup`: its own
 * and every parent's up to the root (a systemd `CPUQuota=` sits on the service's, a container
 * runtime's often on a parent). Paths under `/sys/fs/cgroup`, for cgroup v2 (`cpu.max`) and v1's
 * `cpu` controller (`cpu.cfs_quota_us`, `cpu.cfs_period_us`).
 */
export function cgroupCpuDirsOf(procSelfCgroup: string): { v2: string[]; v1: string[] } {
  const v2: string[] = [];
  const v1: string[] = [];
  for (const line of procSelfCgroup.split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(\/.*)$/.exec(line.trim()) ?? [];
    if (path === undefined) continue;
    if (controllers === '') v2.push(...ancestorsOf('/sys/fs/cgroup', path));
    else if (controllers?.split(',').includes('cpu')) {
      v1.push(...ancestorsOf('/sys/fs/cgroup/cpu', path));
    }
  }
  return { v2, v1 };
}

function ancestorsOf(mount: string, path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return parts
    .map((_, index) => `${mount}/${parts.slice(0, parts.length - index).join('/')}`)
    .concat(mount);
}

/** The worker count: a number is taken as it is; `auto` is the cores, capped by the quota. */
export function workerCountOf(
  setting: WebConcurrency,
  machine: { cores: number; cpuQuota: number | undefined },
): number {
  if (setting !== 'auto') return setting;
  const cores = Math.max(1, Math.floor(machine.cores));
  return machine.cpuQuota === undefined ? cores : Math.min(cores, machine.cpuQuota);
}

/**
 * One worker's part of a limit meant for the whole server (the connection cap, the tunnel's
 * receive buffer): rounded up, so that no part is 0 and the parts add up to at most
 * `workers - 1` over the limit. 0 (no limit) stays 0.
 */
export function workerShareOf(limit: number, workers: number): number {
  if (limit === 0) return 0;
  return Math.ceil(limit / Math.max(1, workers));
}

/**
 * The machine's figures for `WEB_CONCURRENCY=auto`: the cores this
 * process may run on, and the tightest CPU quota of its cgroup and the cgroup's parents.
 */
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
