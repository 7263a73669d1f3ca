/**
 * A fresh CSP nonce per page: 128 bits from the system's CSPRNG, never reused. Taken from a
 * pool filled 256 nonces at a time (as Node's own randomUUID does), because one `getrandom`
 * call per page showed up in the pages' CPU profile (docs/decisions/0850).
 */
import { randomFillSync } from 'node:crypto';

const NONCE_BYTES = 16;
const POOL_NONCES = 256;

let pool = Buffer.alloc(0);
let next = 0;

export function newNonce(): string {
  if (next === pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(NONCE_BYTES * POOL_NONCES));
    next = 0;
  }
  const nonce = pool.toString('base64', next, next + NONCE_BYTES);
  next += NONCE_BYTES;
  return nonce;
}
