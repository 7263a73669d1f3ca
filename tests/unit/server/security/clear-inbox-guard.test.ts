import { describe, expect, it } from 'vitest';
import { clearRefusal } from '#app/server/security/clear-inbox-guard';

describe('clearRefusal', () => {
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
    expect(clearRefusal({ method, origin, host, fetchSite })?.status).toBe(refused);
  });
});
