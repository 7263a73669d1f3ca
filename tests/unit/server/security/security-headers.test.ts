import { describe, expect, it } from 'vitest';
import { newNonce, pageContentSecurityPolicy } from '#app/server/security/security-headers.server';

function connectSources(policy: string): string {
  const directive = policy.split('; ').find((part) => part.startsWith('connect-src '));
  return directive?.slice('connect-src '.length) ?? '';
}

describe('pageContentSecurityPolicy', () => {
  it.each([
    [undefined, "'self'"],
    ['http://localhost:8969/stream', "'self' http://localhost:8969"],
    // A path cannot add a directive: only the origin goes into the policy.
    ['http://127.0.0.1:9000/a;script-src%20*', "'self' http://127.0.0.1:9000"],
  ])('with the Spotlight sidecar %j, pages may connect to %s', (sidecar, sources) => {
    const policy = pageContentSecurityPolicy({ nonce: 'n0nce' }, sidecar);
    expect(connectSources(policy)).toBe(sources);
    expect(policy).toContain("script-src 'self' 'nonce-n0nce'");
  });

  it.each([
    [["'sha256-AAAA'", "'sha256-BBBB'"], "script-src 'self' 'sha256-AAAA' 'sha256-BBBB';"],
    // A page without inline scripts allows none: never 'unsafe-inline'.
    [[], "script-src 'self';"],
  ])('a cached page with the hashes %j allows only those inline scripts', (hashes, directive) => {
    const policy = pageContentSecurityPolicy({ hashes });
    expect(`${policy};`).toContain(directive);
    expect(policy).not.toContain('nonce-');
    expect(policy).not.toContain('unsafe-inline');
  });
});

describe('newNonce', () => {
  it('gives 128 bits as base64, never the same twice, across several refills of its pool', () => {
    const nonces = Array.from({ length: 2_000 }, newNonce);
    for (const nonce of nonces) expect(Buffer.from(nonce, 'base64')).toHaveLength(16);
    expect(nonces.every((nonce) => /^[A-Za-z0-9+/]{22}==$/.test(nonce))).toBe(true);
    expect(new Set(nonces).size).toBe(nonces.length);
  });
});
