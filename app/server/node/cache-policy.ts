/**
 * `Cache-Control` for every response the server's entry hands on, in one place. Pure: the
 * path and whether it is a public file decide. Handlers that know better set their own
 * (`/health` and the entry's refusals say `no-store`; the tunnel passes Sentry's answer on).
 * Decision: docs/decisions/0820-precompressed-assets.md.
 */
import { decodedPath } from './decoded-path';

/** A file whose name holds a hash of its content: a new build gives it a new name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** A public file with a stable name (`/favicon.svg`): any cache may keep it, asking first (ETag). */
export const REVALIDATED = 'public, no-cache';
/**
 * A page: the browser may keep it for back and forward but asks again before reusing it; no
 * shared cache may keep it (each carries its own CSP nonce, some a visitor's state).
 */
export const PAGE = 'private, no-cache';
/** The private inbox and server-function answers: written to no cache at all, not even the browser's disk. */
export const NOT_STORED = 'no-store';

/**
 * Where vite writes content-hashed names (`[name]-[hash].js`): the client's `/_build/assets/`
 * and the server router's copy of its styles under `/assets/`. Checked against the build by
 * tests/http/precompressed-assets.test.ts.
 */
const HASHED_DIRECTORIES = ['/_build/assets/', '/assets/'];

/**
 * @param path the request's path (no query)
 * @param publicFile a GET or HEAD of a file in `.output/public`, answered by nitro's static
 *   handler: a missing `/_build/` file is not one (it gets the not-found page, never cached)
 */
export function cacheControlOf(path: string, publicFile: boolean): string {
  const decoded = decodedPath(path);
  if (publicFile) {
    return HASHED_DIRECTORIES.some((dir) => decoded.startsWith(dir)) ? IMMUTABLE : REVALIDATED;
  }
  if (decoded.startsWith('/_server/') || isInboxPath(decoded)) return NOT_STORED;
  return PAGE;
}

/** The router matches paths case-insensitively: `/Errors` is the inbox too. */
function isInboxPath(path: string): boolean {
  const lower = path.toLowerCase();
  return lower === '/errors' || lower.startsWith('/errors/');
}
