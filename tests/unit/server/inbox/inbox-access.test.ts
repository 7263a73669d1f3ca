import { describe, expect, it } from 'vitest';
import type { InboxAccess } from '#app/server/env.server';
import {
  type InboxRequest,
  inboxAccessDecision,
  sessionCookie,
  sessionFor,
  sessionFromCookies,
  tokenMatches,
} from '#app/server/inbox/inbox-access';

const TOKEN = 'correct-horse-battery-staple';
const local: InboxRequest = {
  remoteAddress: '127.0.0.1',
  host: 'localhost:3000',
  forwarded: false,
  session: undefined,
};

describe('inboxAccessDecision', () => {
  it.each<[string, InboxAccess, Partial<InboxRequest>, string]>([
    [
      'development: anyone',
      { kind: 'open' },
      { remoteAddress: '203.0.113.9', host: 'x.test' },
      'allowed',
    ],
    ['production, from this machine', { kind: 'loopback' }, {}, 'allowed'],
    [
      'production, IPv6 loopback',
      { kind: 'loopback' },
      { remoteAddress: '::1', host: '[::1]:3000' },
      'allowed',
    ],
    [
      'production, IPv4-mapped loopback',
      { kind: 'loopback' },
      { remoteAddress: '::ffff:127.0.0.1', host: '127.0.0.1:3000' },
      'allowed',
    ],
    [
      'production, another machine',
      { kind: 'loopback' },
      { remoteAddress: '198.18.0.1', host: '198.18.0.1:3000' },
      'local-only',
    ],
    [
      'production, through a proxy on this machine',
      { kind: 'loopback' },
      { forwarded: true },
      'local-only',
    ],
    [
      'production, a rebound DNS name on loopback',
      { kind: 'loopback' },
      { host: 'evil.test:3000' },
      'local-only',
    ],
    ['production, no Host', { kind: 'loopback' }, { host: null }, 'local-only'],
    [
      'token, signed in',
      { kind: 'token', token: TOKEN },
      { remoteAddress: '198.18.0.1', session: sessionFor(TOKEN) },
      'allowed',
    ],
    ['token, not signed in', { kind: 'token', token: TOKEN }, {}, 'sign-in'],
    [
      'token, the token itself as cookie',
      { kind: 'token', token: TOKEN },
      { session: TOKEN },
      'sign-in',
    ],
    [
      'token, a session of another token',
      { kind: 'token', token: TOKEN },
      { session: sessionFor(`${TOKEN}x`) },
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

  it('reads the session back from a Cookie header among others', () => {
    const value = sessionFor(TOKEN);
    expect(sessionFromCookies(`a=1; inbox_session=${value}; b=2`)).toBe(value);
    expect(sessionFromCookies('a=1')).toBeUndefined();
    expect(sessionFromCookies(null)).toBeUndefined();
  });

  it('sets an HttpOnly, SameSite=Strict cookie, Secure only over https', () => {
    expect(sessionCookie(TOKEN, false)).toMatch(
      /^inbox_session=[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/,
    );
    expect(sessionCookie(TOKEN, true)).toMatch(/; Secure$/);
    expect(sessionCookie(TOKEN, true)).not.toContain(TOKEN);
  });
});
