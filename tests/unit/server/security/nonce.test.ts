import { describe, expect, it } from 'vitest';
import { newNonce } from '#app/server/security/nonce.server';

describe('newNonce', () => {
  it('gives 128 bits as base64, never the same twice, across several refills of its pool', () => {
    const nonces = Array.from({ length: 2_000 }, newNonce);
    for (const nonce of nonces) expect(Buffer.from(nonce, 'base64')).toHaveLength(16);
    expect(nonces.every((nonce) => /^[A-Za-z0-9+/]{22}==$/.test(nonce))).toBe(true);
    expect(new Set(nonces).size).toBe(nonces.length);
  });
});
