import { describe, expect, it } from 'vitest';
import {
  type BudgetAnswer,
  clientRateHeaders,
  clientShareHeaders,
  createByteBudget,
  createClientRate,
  createClientSlots,
  localBufferLimits,
} from '#app/server/tunnel/client-limits';

const MiB = 1024 * 1024;

describe('createByteBudget: the local receive buffer shared fairly', () => {
  // total 100, a client 40, the last 20 only for envelopes of at most 10.
  const limits = { total: 100, perClient: 40, reserve: 20, smallEnvelope: 10 };

  it.each<[string, Array<[string, number, number]>, BudgetAnswer[]]>([
    // each a new envelope: [client, bytes, its size] → answers
    ['within the share', [['a', 40, 40]], ['ok']],
    [
      'past the share: 429',
      [
        ['a', 30, 30],
        ['a', 11, 11],
      ],
      ['ok', 'client'],
    ],
    [
      'large envelopes stop short of the reserve: 503',
      [
        ['a', 40, 40],
        ['b', 40, 40],
        ['c', 1, 11],
      ],
      ['ok', 'ok', 'full'],
    ],
    [
      'small ones use the reserve',
      [
        ['a', 40, 40],
        ['b', 40, 40],
        ['c', 10, 10],
        ['d', 10, 10],
        ['e', 1, 1],
      ],
      ['ok', 'ok', 'ok', 'ok', 'full'],
    ],
    [
      'the share is checked first: a hog gets 429 even when all is full',
      [
        ['a', 40, 40],
        ['b', 40, 40],
        ['a', 1, 1],
      ],
      ['ok', 'ok', 'client'],
    ],
  ])('%s', (_name, takes, answers) => {
    const budget = createByteBudget(limits);
    expect(takes.map(([client, bytes, size]) => budget.holding(client).grow(bytes, size))).toEqual(
      answers,
    );
  });

  it('leaves the reserve once an envelope is known to be large', () => {
    const budget = createByteBudget(limits);
    budget.holding('a').grow(40, 40);
    budget.holding('b').grow(35, 35);
    const growing = budget.holding('c');
    expect(growing.grow(5, 5)).toBe('ok');
    // 6 more make it 11 bytes long: large, and large ones hold at most 80 together.
    expect(growing.grow(6, 11)).toBe('full');
    expect(budget.used()).toBe(80);
  });

  it('holds a client to its share of envelopes still arriving; whole ones count in the total only', () => {
    const budget = createByteBudget(limits);
    const first = budget.holding('a');
    expect(first.grow(30, 30)).toBe('ok');
    const second = budget.holding('a');
    expect(second.grow(20, 20)).toBe('client');
    expect([budget.used(), budget.usedBy('a')]).toEqual([30, 30]);
    // The first has arrived whole and waits to be written: the client may send another.
    first.arrived();
    expect(budget.usedBy('a')).toBe(0);
    expect(second.grow(20, 20)).toBe('ok');
    expect([budget.used(), budget.usedBy('a')]).toEqual([50, 20]);
    first.release();
    second.release();
    second.release();
    expect([budget.used(), budget.usedBy('a')]).toEqual([0, 0]);
  });
});

describe('localBufferLimits', () => {
  it.each([
    // SENTRY_TUNNEL_MAX_BYTES → a client's share
    [1 * MiB, 2 * MiB], // the default: 28 clients to hold the 56 MiB outside the reserve
    [64 * 1024, 2 * MiB], // a 32nd of the whole at least
    [4 * MiB, 8 * MiB], // two of the largest
    [56 * MiB, 64 * MiB], // never more than the whole
  ])('envelopes of at most %i bytes: a client holds at most %i', (maxBytes, perClient) => {
    expect(localBufferLimits(maxBytes, 1)).toEqual({
      total: 64 * MiB,
      perClient,
      reserve: 8 * MiB,
      smallEnvelope: 64 * 1024,
    });
  });

  it.each([
    // SENTRY_TUNNEL_MAX_BYTES, workers → each worker's whole: room for one of the largest
    // beside the reserve, whatever the share
    [1024 * MiB, 1, 1032 * MiB],
    [30 * MiB, 2, 34 * MiB],
    [1 * MiB, 64, 1 * MiB + 128 * 1024], // the 1 MiB share, and a 64th of the reserve beside it
  ])(
    'envelopes of at most %i bytes over %i workers: each holds %i in all',
    (maxBytes, workers, total) => {
      const limits = localBufferLimits(maxBytes, workers);
      expect(limits.total).toBe(total);
      expect(limits.total - limits.reserve).toBeGreaterThanOrEqual(maxBytes);
    },
  );

  it.each([
    // workers → each worker's whole and reserve: the server's 64 and 8 MiB divided
    [2, 32 * MiB, 4 * MiB],
    [4, 16 * MiB, 2 * MiB],
  ])(
    'with %i workers, each holds %i bytes, %i of them kept for small envelopes',
    (workers, total, reserve) => {
      expect(localBufferLimits(1 * MiB, workers)).toEqual({
        total,
        perClient: 2 * MiB,
        reserve,
        smallEnvelope: 64 * 1024,
      });
    },
  );
});

describe('the 429 past a share', () => {
  it.each([
    [10_000, '10'],
    [2_500, '3'],
    [1, '1'],
  ])('after a body deadline of %i ms the SDK waits %s s for every kind of envelope', (ms, s) => {
    expect(clientShareHeaders(ms)).toEqual({
      'retry-after': s,
      'x-sentry-rate-limits': `${s}::organization:client_share`,
    });
  });

  it('gives each client its own slots', () => {
    const slots = createClientSlots(2);
    expect(['a', 'a', 'a', 'b'].map((client) => slots.enter(client))).toEqual([
      true,
      true,
      false,
      true,
    ]);
    slots.leave('a');
    expect(slots.heldBy('a')).toBe(1);
    expect(slots.enter('a')).toBe(true);
  });
});

const LIMITS = {
  envelopesPerSecond: 10,
  envelopeBurst: 20,
  bytesPerSecond: 1000,
  byteBurst: 5000,
  maxClients: 3,
};

function harness() {
  let clock = 0;
  const rate = createClientRate(LIMITS, () => clock);
  return { rate, tick: (ms: number) => (clock += ms) };
}

describe('createClientRate', () => {
  it('admits a burst, then refuses until the bucket refills at its rate, with the wait in seconds', () => {
    const { rate, tick } = harness();
    for (let i = 0; i < 20; i++) expect(rate.admit('a')).toEqual({ ok: true });
    expect(rate.admit('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
    tick(100);
    expect(rate.admit('a')).toEqual({ ok: true });
    expect(rate.admit('a').ok).toBe(false);
  });

  it('keeps clients apart: one client past its rate leaves another untouched', () => {
    const { rate } = harness();
    for (let i = 0; i < 25; i++) rate.admit('greedy');
    expect(rate.admit('greedy').ok).toBe(false);
    expect(rate.admit('other')).toEqual({ ok: true });
  });

  it('charges bytes after the fact: a client in debt waits until the debt is paid', () => {
    const { rate, tick } = harness();
    expect(rate.admit('a').ok).toBe(true);
    rate.charge('a', 8000);
    // 3,000 bytes of debt at 1,000 a second: four seconds until the bucket is positive again.
    expect(rate.admit('a')).toEqual({ ok: false, retryAfterSeconds: 4 });
    tick(3000);
    expect(rate.admit('a').ok).toBe(false);
    tick(1001);
    expect(rate.admit('a').ok).toBe(true);
  });

  it('tracks a bounded number of clients, forgetting those whose buckets have refilled first', () => {
    const { rate, tick } = harness();
    rate.admit('a');
    rate.admit('b');
    rate.admit('c');
    tick(10_000);
    for (let i = 0; i < 25; i++) rate.admit('d');
    expect(rate.size()).toBeLessThanOrEqual(3);
    // d is still held to its rate: it was not the one forgotten.
    expect(rate.admit('d').ok).toBe(false);
  });

  it('says how long to wait in both headers, for every category', () => {
    expect(clientRateHeaders(3)).toEqual({
      'retry-after': '3',
      'x-sentry-rate-limits': '3::organization:client_rate',
    });
  });
});
