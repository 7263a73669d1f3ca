/**
 * Tests of inbox-access, one section per part of the module, in its order.
 */

import { describe, expect, it } from 'vitest';
import type { InboxAccess } from '#app/server/env.server';
import {
  createSignInLimiter,
  type InboxRequest,
  inboxAccessDecision,
  isForwarded,
  SIGN_IN_LOCKOUT_MS,
  SIGN_IN_MAX_CLIENTS,
  SIGN_IN_MAX_FAILURES,
  SIGN_IN_WINDOW_MS,
  tokenMatches,
} from '#app/server/inbox/inbox-access.server';
import {
  clientKeyOf,
  NO_TRUSTED_PROXIES,
  type TrustedProxies,
  trustedProxiesOf,
} from '#app/server/security/client-key';

const TOKEN = 'correct-horse-battery-staple';
const local: InboxRequest = {
  remoteAddress: '127.0.0.1',
  host: 'localhost:3000',
  forwarded: false,
  signedIn: false,
};
const signIn = (trustLoopback: boolean): InboxAccess => ({
  kind: 'token',
  token: TOKEN,
  generated: true,
  trustLoopback,
});

describe('inboxAccessDecision', () => {
  it.each<[string, InboxAccess, Partial<InboxRequest>, string]>([
    [
      'development: anyone',
      { kind: 'open' },
      { remoteAddress: '203.0.113.9', host: 'x.test' },
      'open',
    ],
    // The default: a proxy on this machine (nginx's bare proxy_pass) looks exactly like this.
    ['production, from this machine', signIn(false), {}, 'sign-in'],
    ['production, signed in', signIn(false), { signedIn: true }, 'session'],
    [
      'production, signed in from another machine',
      signIn(false),
      { remoteAddress: '198.18.0.1', host: 'app.example.com', signedIn: true },
      'session',
    ],
    ['trusted loopback, from this machine', signIn(true), {}, 'loopback'],
    ['trusted loopback, signed in too', signIn(true), { signedIn: true }, 'session'],
    [
      'trusted loopback, IPv6 loopback',
      signIn(true),
      { remoteAddress: '::1', host: '[::1]:3000' },
      'loopback',
    ],
    [
      'trusted loopback, IPv4-mapped loopback',
      signIn(true),
      { remoteAddress: '::ffff:127.0.0.1', host: '127.0.0.1:3000' },
      'loopback',
    ],
    [
      'trusted loopback, another machine',
      signIn(true),
      { remoteAddress: '198.18.0.1', host: '198.18.0.1:3000' },
      'sign-in',
    ],
    [
      'trusted loopback, through a proxy that marks what it forwards',
      signIn(true),
      { forwarded: true },
      'sign-in',
    ],
    [
      'trusted loopback, a rebound DNS name on loopback',
      signIn(true),
      { host: 'evil.test:3000' },
      'sign-in',
    ],
    ['trusted loopback, no Host', signIn(true), { host: null }, 'sign-in'],
    [
      'trusted loopback, no peer address (vinxi dev)',
      signIn(true),
      { remoteAddress: undefined },
      'sign-in',
    ],
  ])('%s', (_name, access, request, expected) => {
    expect(inboxAccessDecision(access, { ...local, ...request })).toBe(expected);
  });

  it('matches tokens exactly, whatever their lengths', () => {
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
    expect(tokenMatches(`${TOKEN} `, TOKEN)).toBe(false);
    expect(tokenMatches('', TOKEN)).toBe(false);
    expect(tokenMatches(TOKEN.slice(0, -1), TOKEN)).toBe(false);
  });
});

describe('isForwarded: whether a proxy forwarded the request, so it is not this machine', () => {
  const loopbackProxy = trustedProxiesOf(['loopback']);
  const otherProxy = trustedProxiesOf(['127.0.0.2', '10.0.0.0/8']);
  it.each<[string, Record<string, string>, string, TrustedProxies, boolean]>([
    ['no proxy trusted, no header', {}, '127.0.0.1', NO_TRUSTED_PROXIES, false],
    [
      'no proxy trusted, X-Forwarded-For',
      { 'x-forwarded-for': '1.2.3.4' },
      '127.0.0.1',
      NO_TRUSTED_PROXIES,
      true,
    ],
    [
      'no proxy trusted, Forwarded',
      { forwarded: 'for=1.2.3.4' },
      '127.0.0.1',
      NO_TRUSTED_PROXIES,
      true,
    ],
    [
      'no proxy trusted, X-Real-IP',
      { 'x-real-ip': '1.2.3.4' },
      '127.0.0.1',
      NO_TRUSTED_PROXIES,
      true,
    ],
    // nginx's bare default sends no header: its being a trusted proxy is enough.
    ['a trusted proxy on loopback, no header', {}, '127.0.0.1', loopbackProxy, true],
    ['a trusted proxy on IPv6 loopback', {}, '::1', loopbackProxy, true],
    ['a trusted proxy, IPv4-mapped', {}, '::ffff:127.0.0.1', loopbackProxy, true],
    // It forwarded for a loopback client: still the proxy's machine, never this one.
    [
      'a trusted proxy forwarding for loopback',
      { 'x-forwarded-for': '127.0.0.1' },
      '127.0.0.1',
      loopbackProxy,
      true,
    ],
    // The proxy has an address of its own: the operator on 127.0.0.1 is not it.
    ['loopback, not the trusted proxy', {}, '127.0.0.1', otherProxy, false],
    ['the trusted proxy at 127.0.0.2', {}, '127.0.0.2', otherProxy, true],
  ])('%s', (_name, headers, peer, trusted, forwarded) => {
    expect(isForwarded(headers, peer, trusted)).toBe(forwarded);
  });

  it('with MONITORING_INBOX_TRUST_LOOPBACK, no request from a trusted proxy reads the inbox unsigned', () => {
    for (const headers of [{}, { 'x-forwarded-for': '127.0.0.1' }, { 'x-forwarded-for': '::1' }]) {
      const decision = inboxAccessDecision(signIn(true), {
        ...local,
        forwarded: isForwarded(headers, '127.0.0.1', loopbackProxy),
      });
      expect(decision).toBe('sign-in');
    }
    // The operator's own request on the machine, when the proxy is elsewhere: as before.
    expect(
      inboxAccessDecision(signIn(true), {
        ...local,
        forwarded: isForwarded({}, '127.0.0.1', otherProxy),
      }),
    ).toBe('loopback');
  });
});

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
