import { describe, expect, it } from 'vitest';
import {
  cgroupCpuDirsOf,
  cpuQuotaOf,
  workerCountOf,
  workerShareOf,
} from '#app/server/cluster/worker-count.server';
import { parseServerEnv } from '#app/server/env.server';

describe('cpuQuotaOf', () => {
  it.each([
    // cgroup files → whole CPUs the process may use, undefined when there is no quota
    [{ cpuMax: 'max 100000\n' }, undefined],
    [{ cpuMax: '200000 100000\n' }, 2],
    [{ cpuMax: '150000 100000' }, 2],
    [{ cpuMax: '50000 100000' }, 1],
    [{ cfsQuotaUs: '-1\n', cfsPeriodUs: '100000\n' }, undefined],
    [{ cfsQuotaUs: '400000\n', cfsPeriodUs: '100000\n' }, 4],
    [{ cpuMax: 'garbage' }, undefined],
    [{}, undefined],
  ])('%j → %j', (cgroup, quota) => {
    expect(cpuQuotaOf(cgroup)).toBe(quota);
  });
});

describe('cgroupCpuDirsOf', () => {
  it.each([
    // /proc/self/cgroup → the directories whose quota binds, the process's own first
    ['0::/\n', { v2: ['/sys/fs/cgroup'], v1: [] }], // a container's own namespace
    [
      '0::/system.slice/app.service\n',
      {
        v2: [
          '/sys/fs/cgroup/system.slice/app.service',
          '/sys/fs/cgroup/system.slice',
          '/sys/fs/cgroup',
        ],
        v1: [],
      },
    ],
    [
      '12:memory:/x\n4:cpu,cpuacct:/docker/abc\n0::/\n',
      {
        v2: ['/sys/fs/cgroup'],
        v1: ['/sys/fs/cgroup/cpu/docker/abc', '/sys/fs/cgroup/cpu/docker', '/sys/fs/cgroup/cpu'],
      },
    ],
    ['', { v2: [], v1: [] }],
  ])('%j → %j', (text, dirs) => {
    expect(cgroupCpuDirsOf(text)).toEqual(dirs);
  });
});

describe('workerCountOf', () => {
  it.each([
    // setting, cores, quota → workers
    ['auto', 2, undefined, 2],
    ['auto', 64, 2, 2], // a container given 2 CPUs of a 64-core host
    ['auto', 4, 8, 4],
    ['auto', 0, undefined, 1],
    [3, 2, undefined, 3], // a number is the operator's: taken as it is
    [1, 64, undefined, 1],
  ] as const)('%j on %i cores (quota %j) → %i', (setting, cores, cpuQuota, workers) => {
    expect(workerCountOf(setting, { cores, cpuQuota })).toBe(workers);
  });
});

describe('workerShareOf', () => {
  it.each([
    // the server's limit, workers → each worker's part
    [10_000, 1, 10_000],
    [10_000, 2, 5_000],
    [1_000, 3, 334], // rounded up: the parts add up to at most workers - 1 more
    [1, 4, 1], // never 0, which would refuse everyone
    [0, 2, 0], // 0 is "no cap" and stays so
  ])('%i over %i workers → %i each', (limit, workers, share) => {
    expect(workerShareOf(limit, workers)).toBe(share);
  });
});

describe('WEB_CONCURRENCY', () => {
  const machine = () => ({ cores: 4, cpuQuota: 2 });
  const configOf = (env: Record<string, string>) => {
    const result = parseServerEnv(env, () => 'made-for-this-run-0000', machine);
    if (!result.ok) throw new Error(result.message);
    return result.config;
  };

  it('is one worker per core in production, one process otherwise', () => {
    expect(configOf({ NODE_ENV: 'production' })).toMatchObject({
      webConcurrency: 'auto',
      workers: 2,
    });
    expect(configOf({ NODE_ENV: 'development' })).toMatchObject({ webConcurrency: 1, workers: 1 });
  });

  it.each([
    ['auto', 2],
    [' AUTO ', 2],
    ['1', 1],
    ['3', 3],
  ])('%j → %i workers', (value, workers) => {
    expect(configOf({ NODE_ENV: 'production', WEB_CONCURRENCY: value }).workers).toBe(workers);
  });

  it.each(['0', '-1', '2.5', 'max', '257', '99999'])('%j stops the server, naming it', (value) => {
    const result = parseServerEnv({ WEB_CONCURRENCY: value }, () => 'x', machine);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toContain(
        `WEB_CONCURRENCY: must be "auto" or a whole number of workers from 1 to 256, got "${value.trim()}"`,
      );
    }
  });
});
