import { describe, expect, it } from 'vitest';
import type { InboxAccess } from '#app/server/env.server';
import {
  type InboxRequest,
  inboxAccessDecision,
  tokenMatches,
} from '#app/server/inbox/inbox-access';

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
