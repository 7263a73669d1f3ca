import { describe, expect, it } from 'vitest';
import {
  type ClientConnections,
  createConnectionTable,
  descriptorLimitOf,
  evictionVictim,
  MAX_CONNECTIONS,
  serverLimits,
} from '#app/server/node/server-limits.server';
import { trustedProxiesOf } from '#app/server/security/client-key';

/** A client holding `open` connections, of which these ids serve no request, oldest first. */
const holding = (open: number, ...evictable: number[]): ClientConnections<number> => ({
  open,
  evictable: new Set(evictable),
});

describe('evictionVictim: whose connection a newcomer replaces', () => {
  it.each<[string, Array<[string, ClientConnections<number>]>, number | undefined]>([
    ['nobody holds anything', [], undefined],
    [
      'the longest waiting connection of the client holding the most',
      [
        ['198.18.0.1', holding(2, 10, 11)],
        ['198.18.0.2', holding(5, 20, 21, 22)],
        ['198.18.0.3', holding(3, 30)],
      ],
      20,
    ],
    [
      'the next biggest holder when every connection of the biggest serves a request',
      [
        ['198.18.0.2', holding(5)],
        ['198.18.0.1', holding(2, 10)],
        ['198.18.0.3', holding(3, 30, 31)],
      ],
      30,
    ],
    [
      'the first of equal holders',
      [
        ['198.18.0.1', holding(3, 10)],
        ['198.18.0.2', holding(3, 20)],
      ],
      10,
    ],
    [
      'nothing when every connection serves a request',
      [
        ['198.18.0.1', holding(3)],
        ['198.18.0.2', holding(1)],
      ],
      undefined,
    ],
  ])('%s', (_name, clients, expected) => {
    expect(evictionVictim(clients)?.id).toBe(expected);
  });
});

describe('createConnectionTable', () => {
  it('accepts under the cap, and at the cap closes the biggest holder’s longest waiting connection', () => {
    const table = createConnectionTable<number>({ maxConnections: 4, perClient: 0 });
    expect(table.open(1, '198.18.0.1').kind).toBe('accept');
    expect(table.open(2, '198.18.0.1').kind).toBe('accept');
    expect(table.open(3, '198.18.0.1').kind).toBe('accept');
    expect(table.open(4, '198.18.0.2').kind).toBe('accept');
    expect(table.open(5, '198.18.0.9')).toEqual({
      kind: 'accept-evicting',
      victim: 1,
      victimClient: '198.18.0.1',
      victimHeld: 3,
    });
    expect(table.size()).toBe(4);
    expect(table.heldBy('198.18.0.1')).toBe(2);
    // The evicted socket's own close comes later and changes nothing.
    table.closed(1);
    expect(table.size()).toBe(4);
  });

  it('never closes a connection serving a request, and puts one that finished at the back of the line', () => {
    const table = createConnectionTable<number>({ maxConnections: 3, perClient: 0 });
    table.open(1, '198.18.0.1');
    table.open(2, '198.18.0.1');
    table.open(3, '198.18.0.1');
    table.requestStarted(1);
    table.requestStarted(2);
    expect(table.open(4, '198.18.0.2')).toMatchObject({ victim: 3 });
    // 1 answered its request: idle now, it goes behind 4 (waiting since it opened).
    table.requestEnded(1);
    table.requestStarted(2); // pipelined: 2 serves two requests
    table.requestEnded(2);
    expect(table.open(5, '198.18.0.3')).toMatchObject({ victim: 1, victimClient: '198.18.0.1' });
    expect(table.open(6, '198.18.0.3')).toMatchObject({ victim: 4, victimClient: '198.18.0.2' });
    // 2 still serves one request; the newcomer holds 5 and 6 now: its next replaces its own 5.
    expect(table.open(7, '198.18.0.3')).toMatchObject({ victim: 5, victimClient: '198.18.0.3' });
  });

  it('refuses a newcomer when every connection is serving a request', () => {
    const table = createConnectionTable<number>({ maxConnections: 2, perClient: 0 });
    table.open(1, '198.18.0.1');
    table.open(2, '198.18.0.2');
    table.requestStarted(1);
    table.requestStarted(2);
    expect(table.open(3, '198.18.0.3')).toEqual({ kind: 'refuse-full', client: '198.18.0.3' });
    expect(table.size()).toBe(2);
    table.closed(2);
    expect(table.open(3, '198.18.0.3').kind).toBe('accept');
  });

  it('holds each client to its cap, and counts again once its connections close', () => {
    const table = createConnectionTable<number>({ maxConnections: 100, perClient: 2 });
    expect(table.open(1, '198.18.0.1').kind).toBe('accept');
    expect(table.open(2, '::ffff:198.18.0.1').kind).toBe('accept');
    expect(table.open(3, '198.18.0.1')).toEqual({ kind: 'refuse-client', client: '198.18.0.1' });
    expect(table.open(4, '198.18.0.2').kind).toBe('accept');
    table.closed(1);
    expect(table.open(5, '198.18.0.1').kind).toBe('accept');
  });

  it('never caps a trusted proxy per client, but counts it toward the server’s cap', () => {
    const proxies = trustedProxiesOf(['loopback']);
    const table = createConnectionTable<number>({
      maxConnections: 4,
      perClient: 2,
      uncapped: (address) => address !== undefined && proxies.trusts(address, 0),
    });
    const kinds = [1, 2, 3, 4].map((id) => table.open(id, '127.0.0.1').kind);
    expect(kinds).toEqual(['accept', 'accept', 'accept', 'accept']);
    expect(table.heldBy('127.0.0.1')).toBe(4);
    // Anyone else keeps the cap, a forwarded header or not (none is read here).
    expect(table.open(10, '198.18.0.1').kind).toBe('accept-evicting');
    expect(table.open(11, '198.18.0.1').kind).toBe('accept-evicting');
    expect(table.open(12, '198.18.0.1')).toEqual({ kind: 'refuse-client', client: '198.18.0.1' });
  });

  it('counts an IPv6 /64 as one client: its many addresses share one cap and one line', () => {
    const table = createConnectionTable<number>({ maxConnections: 10, perClient: 5 });
    const addresses = Array.from({ length: 8 }, (_, i) => `2001:db8:1:2:${i + 1}::${i + 7}`);
    const kinds = addresses.map((address, i) => table.open(i, address).kind);
    expect(kinds).toEqual([...Array(5).fill('accept'), ...Array(3).fill('refuse-client')]);
    expect(table.heldBy('2001:db8:1:2::1')).toBe(5);
    // A neighbouring /64 is another client.
    expect(table.open(100, '2001:db8:1:3::1').kind).toBe('accept');
    // At the cap the /64 is the biggest holder, however many addresses it used.
    for (let i = 0; i < 4; i += 1) table.open(200 + i, `198.18.0.${i + 1}`);
    expect(table.open(300, '198.18.0.50')).toMatchObject({
      victim: 0,
      victimClient: '2001:db8:1:2::/64',
      victimHeld: 5,
    });
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
