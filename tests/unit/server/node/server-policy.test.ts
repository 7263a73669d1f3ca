import { describe, expect, it } from 'vitest';
import { nextShedding, requestKind } from '#app/server/node/admission.server';
import { isHiddenBuildFile } from '#app/server/node/public-files.server';
import {
  descriptorLimitOf,
  HEADERS_TIMEOUT_MS,
  MAX_CONNECTIONS,
  serverLimits,
} from '#app/server/node/server-limits.server';

describe('nextShedding', () => {
  it.each([
    // shedding, lag, threshold → shedding next
    [false, 10, 100, false],
    [false, 100, 100, false],
    [false, 101, 100, true],
    [true, 60, 100, true], // still above half: keep shedding
    [true, 50, 100, true],
    [true, 49, 100, false],
    [false, 5000, 0, false], // 0 turns it off
    [true, 5000, 0, false],
  ])(
    'shedding=%j with lag %j ms and threshold %j ms → %j',
    (shedding, lagMs, thresholdMs, next) => {
      expect(nextShedding({ shedding, lagMs, thresholdMs })).toBe(next);
    },
  );
});

describe('requestKind', () => {
  it.each([
    ['GET', '/about', 'page'],
    ['HEAD', '/', 'page'],
    ['GET', '/errors/abc', 'page'],
    ['POST', '/about', 'page'],
    ['GET', '/_build/assets/client.js', 'file'],
    ['POST', '/_build/assets/client.js', 'page'],
    ['GET', '/_server/abc', 'server-function'],
    ['POST', '/_server/abc', 'server-function'],
    ['GET', '/favicon.svg', 'file'],
    ['GET', '/assets/app.css', 'file'],
    ['GET', '/favicon.svg.html', 'page'],
  ])('%s %s → %s', (method, path, expected) => {
    expect(requestKind(method, path, new Set(['/favicon.svg', '/assets/app.css']))).toBe(expected);
  });
});

describe('isHiddenBuildFile', () => {
  it.each([
    ['/_build/.vite/manifest.json', true],
    ['/_build/%2Evite/manifest.json', true],
    ['/_build/assets/client-abc.js.map', true],
    ['/_build/assets/client-abc.js%2Emap', true],
    ['/_build/assets/client-abc.js', false],
    ['/%5Fbuild/assets/client-abc.js.map', true],
    ['/assets/ssr-abc.js.map', true],
    ['/assets/ssr-abc.js%2Emap', true],
    ['/assets/app.css', false],
    ['/favicon.svg', false],
    ['/about.map', false],
    // Compressed variants of hidden files are hidden too, whoever wrote them.
    ['/_build/.vite/manifest.json.br', true],
    ['/_build/.vite/manifest.json.gz', true],
    ['/_build/.vite', true],
    ['/_build/.vite/manifest.json/', true],
    ['/_build/assets/client-abc.js.map.gz', true],
    ['/_build/assets/client-abc.js.map.br', true],
    ['/_build/assets/client-abc.js.map%2Ebr', true],
    ['/_build/assets/client-abc.js.map.gz.br', true],
    ['/_build/assets/client-abc.js.map/', true],
    ['/assets/ssr-abc.js.map.br', true],
    ['/_build/assets/client-abc.js.br', false],
    ['/_build/assets/client-abc.js.gz', false],
    ['/_build/assets/vite.svg', false],
    ['/favicon.svg.br', false],
  ])('%s → %j', (path, hidden) => {
    expect(isHiddenBuildFile(path)).toBe(hidden);
  });
});

describe('serverLimits', () => {
  const base = {
    tunnelBodyTimeoutMs: 10_000,
    tunnelTimeoutMs: 10_000,
    keepAliveTimeoutMs: 5_000,
    workers: 1,
  };

  it('caps connections below the descriptor limit, keeping some for files and Sentry', () => {
    expect(serverLimits({ ...base, descriptorLimit: 1024 }).maxConnections).toBe(691);
    expect(serverLimits({ ...base, descriptorLimit: 20_000 }).maxConnections).toBe(MAX_CONNECTIONS);
    expect(serverLimits({ ...base, descriptorLimit: undefined }).maxConnections).toBe(
      MAX_CONNECTIONS,
    );
    expect(serverLimits({ ...base, descriptorLimit: 100 }).maxConnections).toBe(64);
  });

  it.each([
    // workers, descriptor limit → each worker's connection cap: a share of the server's, and
    // never past its own descriptors
    [2, undefined, 5_000],
    [3, 20_000, 3_334],
    [2, 1024, 691],
    [4, 100, 64],
  ])(
    'with %i workers and %j descriptors each, a worker holds %i connections',
    (workers, descriptorLimit, cap) => {
      expect(serverLimits({ ...base, workers, descriptorLimit }).maxConnections).toBe(cap);
    },
  );

  it.each([
    // descriptor limit → open pages (rendering or streaming): 1,000, or fewer than connections
    [20_000, 1_000],
    [undefined, 1_000],
    [1024, 691],
    [100, 64],
  ])('with a descriptor limit of %j, keeps %j pages open at most', (descriptorLimit, pages) => {
    const limits = serverLimits({ ...base, descriptorLimit });
    expect(limits.maxOpenPages).toBe(pages);
    expect(limits.maxOpenPages).toBeLessThanOrEqual(limits.maxConnections);
  });

  it('gives a slow tunnel body and a slow Sentry their full time', () => {
    const limits = serverLimits({
      descriptorLimit: 20_000,
      tunnelBodyTimeoutMs: 120_000,
      tunnelTimeoutMs: 90_000,
      keepAliveTimeoutMs: 5_000,
      workers: 1,
    });
    expect(limits.requestTimeout).toBeGreaterThan(120_000);
    expect(limits.idleSocketTimeout).toBeGreaterThan(90_000);
    expect(limits.headersTimeout).toBeLessThanOrEqual(limits.requestTimeout);
    expect(limits.headersTimeout).toBe(HEADERS_TIMEOUT_MS);
  });

  it('keeps an idle kept-alive connection as long as KEEP_ALIVE_TIMEOUT_MS says', () => {
    const limits = serverLimits({ ...base, descriptorLimit: 20_000, keepAliveTimeoutMs: 75_000 });
    expect(limits.keepAliveTimeout).toBe(75_000);
    expect(limits.idleSocketTimeout).toBeGreaterThan(75_000);
  });

  it('reads the soft open-files limit from /proc/self/limits', () => {
    const proc = [
      'Limit                     Soft Limit           Hard Limit           Units',
      'Max processes             127176               127176               processes',
      'Max open files            1024                 524288               files',
    ].join('\n');
    expect(descriptorLimitOf(proc)).toBe(1024);
    expect(descriptorLimitOf(proc.replace('1024  ', 'unlimited'))).toBeUndefined();
    expect(descriptorLimitOf('nothing here')).toBeUndefined();
  });
});
