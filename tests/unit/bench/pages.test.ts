import { describe, expect, it } from 'vitest';
import { ownInlineScripts } from '../../../bench/pages/browser-bytes.mjs';
import { hasExplicitFreshness } from '../../../bench/pages/freshness.mjs';
import { TARGETS, verdicts, workerVerdicts } from '../../../bench/pages/targets.mjs';
import { durationMs, parseWrkOutput } from '../../../bench/pages/wrk-output.mjs';

// Real wrk 4 output (wrk -t1 -c4 -d1s --latency), one run with a 404 path.
const WRK_ALL_404 = `Running 1s test @ http://127.0.0.1:45067/nope
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.69ms    3.67ms  43.29ms   95.03%
    Req/Sec     4.65k     2.16k    8.15k    70.00%
  Latency Distribution
     50%  565.00us
     75%    1.51ms
     90%    3.60ms
     99%   22.26ms
  4617 requests in 1.01s, 829.62KB read
  Non-2xx or 3xx responses: 4617
Requests/sec:   4563.19
Transfer/sec:    819.95KB
`;

const WRK_SLOW_WITH_TIMEOUTS = `Running 8s test @ http://127.0.0.1:3000/
  1 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.20s   300.00ms   2.50s    70.00%
    Req/Sec    12.00      3.00    20.00     80.00%
  Latency Distribution
     50%    1.10s
     75%    1.40s
     90%    1.90s
     99%    2.40s
  96 requests in 8.02s, 1.20MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
Requests/sec:     11.97
Transfer/sec:    153.20KB
`;

describe('durationMs', () => {
  it.each([
    ['565.00us', 0.565],
    ['1.51ms', 1.51],
    ['2.40s', 2400],
    ['1.00m', 60_000],
  ])('%s is %f ms', (text, expected) => {
    expect(durationMs(text)).toBeCloseTo(expected, 6);
  });

  it('refuses what is not a duration', () => {
    expect(() => durationMs('12')).toThrow(/not a wrk duration/);
  });
});

describe('parseWrkOutput', () => {
  it.each([
    [
      'fast answers, all of them 404',
      WRK_ALL_404,
      { rps: 4563.19, p50: 0.565, p99: 22.26, requests: 4617, failed: 4617 },
    ],
    [
      'slow answers, socket errors and timeouts',
      WRK_SLOW_WITH_TIMEOUTS,
      { rps: 11.97, p50: 1100, p99: 2400, requests: 96, failed: 5 },
    ],
  ])('%s', (_name, output, expected) => {
    const figures = parseWrkOutput(output);
    for (const [key, value] of Object.entries(expected)) {
      expect(figures[key as keyof typeof figures]).toBeCloseTo(value, 6);
    }
  });

  it('says so when wrk ran without --latency', () => {
    const withoutPercentiles = WRK_ALL_404.replace(/ {2}Latency Distribution[\s\S]*?99%.*\n/, '');
    expect(() => parseWrkOutput(withoutPercentiles)).toThrow(/50th percentile/);
  });
});

describe('hasExplicitFreshness', () => {
  const NOW = Date.parse('2026-11-23T12:00:00Z');
  it.each([
    ['immutable, a year', 'public, max-age=31536000, immutable', undefined, true],
    ['s-maxage only (shared caches, not the browser)', 's-maxage=60', undefined, false],
    ['max-age=0', 'max-age=0', undefined, false],
    ['no-cache beside a max-age', 'max-age=600, no-cache', undefined, false],
    ['no-store', 'no-store', 'Tue, 01 Dec 2026 00:00:00 GMT', false],
    ['no header at all (heuristic freshness only)', undefined, undefined, false],
    ['Expires in the future', undefined, 'Tue, 01 Dec 2026 00:00:00 GMT', true],
    ['Expires in the past', undefined, 'Sun, 01 Nov 2026 00:00:00 GMT', false],
    ['an unreadable Expires', undefined, '0', false],
  ])('%s', (_name, cacheControl, expires, expected) => {
    expect(hasExplicitFreshness(cacheControl, expires, NOW)).toBe(expected);
  });
});

describe('verdicts', () => {
  const bytes = (
    beforeHydrationGzip: number,
    firstWire: number,
    secondWire: number,
    withoutFreshness = 0,
  ) => ({
    first: { count: 5, wire: firstWire, withoutFreshness },
    beforeHydration: { gzip: beforeHydrationGzip },
    second: { count: secondWire > 0 ? 1 : 0, wire: secondWire },
  });
  const minimal = {
    about: { rps: 600, p99: 50 },
    home: { rps: 40 },
    bytes: bytes(83_000, 90_000, 0),
  };
  const passes = (ours: Parameters<typeof verdicts>[0]) =>
    verdicts(ours, minimal, TARGETS).map((row) => row.pass);

  it.each([
    [
      'every target met',
      { about: { rps: 540, p99: 65 }, home: { rps: 36 }, bytes: bytes(118_000, 110_000, 0) },
      [true, true, true, true, true, true],
    ],
    [
      'just under on req/s, just over on p99',
      {
        about: { rps: 539, p99: 65.1 },
        home: { rps: 35.9 },
        bytes: bytes(118_001, 110_001, 1),
      },
      [false, false, false, false, false, false],
    ],
    [
      'nothing on the wire, but only by heuristic freshness',
      { about: { rps: 600, p99: 50 }, home: { rps: 40 }, bytes: bytes(83_000, 90_000, 0, 3) },
      [true, true, true, true, false, true],
    ],
    [
      'the browser part failed',
      { about: { rps: 600, p99: 50 }, home: undefined, bytes: undefined },
      [true, true, null, null, null, null],
    ],
  ])('%s', (_name, ours, expected) => {
    expect(passes(ours)).toEqual(expected);
  });
});

describe('workerVerdicts', () => {
  const one = { rps: 400, p99: 80, cpuMsPerRequest: 2.8 };
  it.each([
    ['1.8 times the req/s, the same p99', { rps: 720, p99: 80 }, [true, true]],
    ['just under 1.8 times, a worse p99', { rps: 719, p99: 80.1 }, [false, false]],
    ['not measured', undefined, [null, null]],
  ])('%s', (_name, two, expected) => {
    expect(workerVerdicts(two, one, 2, TARGETS).map((row) => row.pass)).toEqual(expected);
  });

  it("says how far the machine's CPU lets two workers go", () => {
    // 400 req/s at 2.8 ms each: 1.12 of 2 cores.
    expect(workerVerdicts({ rps: 560, p99: 80 }, one, 2, TARGETS)[0]?.detail).toBe(
      "1.40 x (560 vs 400); one worker uses 1.12 of 2 cores, so this machine's CPU allows at most 1.79 x",
    );
  });
});

describe("ownInlineScripts: the page's inline code counts in its weight", () => {
  it("counts the recorder, not Start's own scripts, JSON data or script files", () => {
    const html = [
      `<head><script nonce="n" class='tsr-once'>const __TSR_SSR__={}</script>`,
      '<script nonce="n" id="monitoring-recorder">(()=>{recorder()})();</script>',
      '<script nonce="n" id="site-config" type="application/json">{"a":1}</script>',
      '<script nonce="n" type="module" async="">import("/_build/assets/client-A.js")</script>',
      '<script nonce="n"></script><script src="/x.js"></script></head>',
    ].join('');
    const scripts = ownInlineScripts(html);
    expect(scripts.map((script) => script.body.toString())).toEqual([
      '(()=>{recorder()})();',
      'import("/_build/assets/client-A.js")',
    ]);
    expect(scripts[0]).toMatchObject({ inline: true, wire: 21 });
  });
});
