import { describe, expect, it } from 'vitest';
import { clientRateHeaders, createClientRate } from '#app/server/tunnel/client-rate';

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
