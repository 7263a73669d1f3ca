/**
 * A fresh CSP nonce per page: 128 bits from the system's CSPRNG, never reused. Taken from a
 * pool filled 256 nonces at a time (as Node's own randomUUID does), because one `getrandom`
 * call per page showed up in the pages' CPU profile (docs/decisions/0850).
 */
import { randomFillSync } from 'node:crypto';
import { processShared } from '#app/server/process-shared.server';

const NONCE_BYTES = 16;
const POOL_NONCES = 256;

const pool = processShared('csp-nonce-pool', () => ({ bytes: Buffer.alloc(0), next: 0 }));

export function newNonce(): string {
  if (pool.next === pool.bytes.length) {
    pool.bytes = randomFillSync(Buffer.allocUnsafe(NONCE_BYTES * POOL_NONCES));
    pool.next = 0;
  }
  const nonce = pool.bytes.toString('base64', pool.next, pool.next + NONCE_BYTES);
  pool.next += NONCE_BYTES;
  return nonce;
}
