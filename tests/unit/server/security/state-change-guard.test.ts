import { describe, expect, it } from 'vitest';
import {
  formPostRefusal,
  isLoopbackAddress,
  isLoopbackHost,
  stateChangeRefusal,
} from '#app/server/security/state-change-guard';

const request = (over: Partial<Parameters<typeof stateChangeRefusal>[0]>) => ({
  method: 'POST',
  host: 'app.example.com',
  origin: 'https://app.example.com',
  fetchSite: 'same-origin',
  ...over,
});

describe('stateChangeRefusal', () => {
  it.each([
    ['a same-origin form post', request({}), 'any', undefined],
    [
      'a GET, whatever its origin',
      request({ method: 'GET', origin: 'https://evil.test' }),
      ['x'],
      undefined,
    ],
    [
      'curl: no Origin, no Sec-Fetch-Site',
      request({ origin: null, fetchSite: null }),
      'any',
      undefined,
    ],
    [
      'an allowed Host on any port',
      request({ host: 'app.example.com:8443', origin: 'https://app.example.com:8443' }),
      ['app.example.com'],
      undefined,
    ],
    [
      'a Host with the allowed port',
      request({ host: 'app.example.com:3000', origin: 'http://app.example.com:3000' }),
      ['app.example.com:3000'],
      undefined,
    ],
    [
      "a rebound DNS name (Host and Origin both the attacker's)",
      request({ host: 'evil.test', origin: 'http://evil.test' }),
      ['app.example.com'],
      'Host not allowed',
    ],
    [
      'a Host on the wrong port of an entry with a port',
      request({ host: 'app.example.com:4000', origin: 'http://app.example.com:4000' }),
      ['app.example.com:3000'],
      'Host not allowed',
    ],
    [
      'this machine by name, whatever the list (the operator on the private inbox)',
      request({ host: 'localhost:3000', origin: 'http://localhost:3000' }),
      ['app.example.com'],
      undefined,
    ],
    [
      'a loopback address with the list',
      request({ host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' }),
      ['app.example.com'],
      undefined,
    ],
    [
      'no Host at all with a list',
      request({ host: null }),
      ['app.example.com'],
      'Host not allowed',
    ],
    [
      'a cross-site form',
      request({ origin: 'https://evil.test', fetchSite: 'cross-site' }),
      'any',
      'Cross-site request refused',
    ],
    [
      'a same-site but other origin',
      request({ origin: 'https://other.example.com', fetchSite: 'same-site' }),
      'any',
      'Cross-site request refused',
    ],
    [
      'an Origin of another host',
      request({ origin: 'https://evil.test', fetchSite: null }),
      'any',
      'Cross-origin request refused',
    ],
    [
      'Origin "null"',
      request({ origin: 'null', fetchSite: null }),
      'any',
      'Cross-origin request refused',
    ],
  ] as const)('%s', (_name, req, allowed, expected) => {
    expect(stateChangeRefusal(req, allowed)).toBe(expected);
  });
});

describe('formPostRefusal', () => {
  const host = 'localhost:3000';
  it.each([
    { method: 'POST', origin: null, fetchSite: null, refused: undefined },
    {
      method: 'POST',
      origin: 'http://localhost:3000',
      fetchSite: 'same-origin',
      refused: undefined,
    },
    { method: 'POST', origin: null, fetchSite: 'none', refused: undefined },
    { method: 'GET', origin: null, fetchSite: null, refused: 405 },
    { method: 'GET', origin: null, fetchSite: 'cross-site', refused: 405 },
    { method: 'POST', origin: 'https://evil.example', fetchSite: null, refused: 403 },
    { method: 'POST', origin: 'http://localhost:3001', fetchSite: null, refused: 403 },
    { method: 'POST', origin: 'null', fetchSite: null, refused: 403 },
    { method: 'POST', origin: null, fetchSite: 'cross-site', refused: 403 },
    { method: 'POST', origin: null, fetchSite: 'same-site', refused: 403 },
  ])('$method from $origin ($fetchSite): $refused', ({ method, origin, fetchSite, refused }) => {
    expect(formPostRefusal({ method, origin, host, fetchSite }, 'signs in')?.status).toBe(refused);
  });

  it('names what only POST does', () => {
    const refusal = formPostRefusal(
      { method: 'GET', origin: null, host, fetchSite: null },
      'signs in',
    );
    expect(refusal).toEqual({ status: 405, reason: 'Only POST signs in' });
  });
});

describe('isLoopbackAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::2', false],
    ['', false],
    [undefined, false],
  ])('%j -> %j', (address, expected) => {
    expect(isLoopbackAddress(address)).toBe(expected);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST:3000', true],
    ['127.0.0.1:3000', true],
    ['[::1]:3000', true],
    ['127.0.0.1.example.com', false],
    ['localhost.example.com', false],
    ['example.com', false],
    [null, false],
  ])('%j -> %j', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
