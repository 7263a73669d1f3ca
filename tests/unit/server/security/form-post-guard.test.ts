import { describe, expect, it } from 'vitest';
import { formPostRefusal } from '#app/server/security/form-post-guard';

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
