/**
 * The security headers and the page's CSP nonce, in one place: the headers every response gets,
 * the policy of a server-rendered page, and a fresh nonce per page. Pure but for the nonce:
 * values from the config and the request's nonce. Why these values and how the nonce reaches
 * Start's inline scripts: docs/decisions/0602-content-security-policy.md.
 */
import { randomFillSync } from 'node:crypto';
import { processShared } from '#app/start-1.120/process-shared.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'csp-nonce-pool': { bytes: Buffer; next: number };
  }
}

/** Sent with every response but the tunnel's: no MIME sniffing, no cross-origin referrers, no framing. */
export function baseSecurityHeaders(hsts: boolean): Array<[string, string]> {
  const headers: Array<[string, string]> = [
    ['x-content-type-options', 'nosniff'],
    ['referrer-policy', 'strict-origin-when-cross-origin'],
    // For browsers that predate CSP's frame-ancestors.
    ['x-frame-options', 'DENY'],
    // Anything that is not a page loads nothing and may not be framed.
    ['content-security-policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'"],
  ];
  // Only when PUBLIC_URL says https: over plain http the header would be a lie browsers ignore.
  if (hsts) headers.push(['strict-transport-security', 'max-age=31536000']);
  return headers;
}

/**
 * Which inline scripts a page runs: those that carry this response's nonce (a rendered page), or
 * exactly those whose text has one of these hashes (a page from the cache, the same for every
 * visitor: app/server/page-cache/, decision 1300).
 */
export type InlineScripts = { nonce: string } | { hashes: readonly string[] };

/**
 * The policy of a server-rendered page. Scripts: our own files, and the page's inline scripts
 * (Start's hydration data, React's streaming scripts, the recorder) by nonce or by hash, never
 * 'unsafe-inline'. Connections: only
 * our own origin, so the tunnel is the only way out for reports; and the Spotlight sidecar
 * when the page was told to copy its reports there (development only, decision 0930).
 */
export function pageContentSecurityPolicy(inline: InlineScripts, spotlightUrl?: string): string {
  const inlineSources = 'nonce' in inline ? `'nonce-${inline.nonce}'` : inline.hashes.join(' ');
  return [
    "default-src 'self'",
    `script-src 'self' ${inlineSources}`.trimEnd(),
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    // Its origin only: a URL's path may hold characters (`;`) that would end the directive.
    spotlightUrl ? `connect-src 'self' ${new URL(spotlightUrl).origin}` : "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * A fresh CSP nonce per page: 128 bits from the system's CSPRNG, never reused. Taken from a
 * pool filled 256 nonces at a time (as Node's own randomUUID does), because one `getrandom`
 * call per page showed up in the pages' CPU profile (docs/decisions/0605).
 */
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
