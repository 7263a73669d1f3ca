import { describe, expect, it } from 'vitest';
import { clientKeyOf } from '#app/server/security/client-key';
import {
  createSignInLimiter,
  SIGN_IN_LOCKOUT_MS,
  SIGN_IN_MAX_CLIENTS,
  SIGN_IN_MAX_FAILURES,
  SIGN_IN_WINDOW_MS,
} from '#app/server/security/sign-in-limiter';

const MINUTE = 60_000;

function limiterAt(maxClients = SIGN_IN_MAX_CLIENTS) {
  let now = 0;
  const limiter = createSignInLimiter({
    maxFailures: SIGN_IN_MAX_FAILURES,
    windowMs: SIGN_IN_WINDOW_MS,
    lockoutMs: SIGN_IN_LOCKOUT_MS,
    maxClients,
    now: () => now,
  });
  return {
    limiter,
    advance(ms: number) {
      now += ms;
    },
    /** A sign-in attempt as the server function makes it: check, then count a wrong token. */
    wrong(address: string) {
      const client = clientKeyOf(address);
      const gate = limiter.check(client);
      if (!gate.allowed) return gate.retryAfterSeconds;
      limiter.failed(client);
      return 'refused';
    },
  };
}

describe('the sign-in limiter', () => {
  it('allows 5 wrong tokens in 15 minutes, then locks out for 5 minutes', () => {
    expect([SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MS, SIGN_IN_LOCKOUT_MS]).toEqual([
      5,
      15 * MINUTE,
      5 * MINUTE,
    ]);
    const { limiter, wrong, advance } = limiterAt();
    expect(Array.from({ length: 5 }, () => wrong('203.0.113.7'))).toEqual(Array(5).fill('refused'));
    expect(wrong('203.0.113.7')).toBe(300);
    advance(4 * MINUTE + 59_500);
    expect(limiter.check('203.0.113.7')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    advance(500);
    expect(limiter.check('203.0.113.7')).toEqual({ allowed: true });
    // A fresh start: five more before the next lockout.
    expect(Array.from({ length: 6 }, () => wrong('203.0.113.7'))).toEqual([
      ...Array(5).fill('refused'),
      300,
    ]);
  });

  it('says when a wrong token locked the client out', () => {
    const { limiter } = limiterAt();
    const results = Array.from({ length: 5 }, () => limiter.failed('a'));
    expect(results.map((result) => result.lockedOut)).toEqual([false, false, false, false, true]);
    expect(results.map((result) => result.failures)).toEqual([1, 2, 3, 4, 5]);
  });

  it('forgets wrong tokens older than the window', () => {
    const { wrong, advance } = limiterAt();
    for (let i = 0; i < 4; i++) wrong('203.0.113.7');
    advance(15 * MINUTE);
    for (let i = 0; i < 5; i++) expect(wrong('203.0.113.7')).toBe('refused');
    expect(wrong('203.0.113.7')).toBe(300);
  });

  it('starts over after the right token', () => {
    const { limiter, wrong } = limiterAt();
    for (let i = 0; i < 4; i++) wrong('203.0.113.7');
    limiter.succeeded('203.0.113.7');
    for (let i = 0; i < 5; i++) expect(wrong('203.0.113.7')).toBe('refused');
  });

  it.each([
    ['another IPv4 address', '203.0.113.7', '203.0.113.8', 'refused'],
    ['the same IPv4 address, IPv4-mapped', '203.0.113.7', '::ffff:203.0.113.7', 300],
    ['another IPv6 /64', '2001:db8:1:2::1', '2001:db8:1:3::1', 'refused'],
    ['the same IPv6 /64, another address', '2001:db8:1:2::1', '2001:db8:1:2:ffff::9', 300],
  ])('counts per client: %s', (_name, locked, other, expected) => {
    const { wrong } = limiterAt();
    for (let i = 0; i < 5; i++) wrong(locked);
    expect(wrong(locked)).toBe(300);
    expect(wrong(other)).toBe(expected);
  });

  it('tracks at most maxClients, dropping stale clients first', () => {
    const { limiter, advance } = limiterAt(3);
    limiter.failed('stale');
    advance(SIGN_IN_WINDOW_MS);
    for (let i = 0; i < 5; i++) limiter.failed('locked');
    limiter.failed('b');
    limiter.failed('c');
    expect(limiter.size()).toBe(3);
    // 'stale' went, not the locked-out client.
    expect(limiter.check('locked').allowed).toBe(false);
    // With none stale, the oldest goes: the bound holds whatever the clients do.
    limiter.failed('d');
    expect(limiter.size()).toBe(3);
  });

  it('keeps memory bounded under a flood of clients', () => {
    const { limiter } = limiterAt(100);
    for (let i = 0; i < 10_000; i++) limiter.failed(`198.18.${i >> 8}.${i & 255}`);
    expect(limiter.size()).toBe(100);
  });
});
