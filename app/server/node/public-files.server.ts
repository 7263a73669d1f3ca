/**
 * The files the built server sends as they are: listed once at start, and the Cache-Control
 * each kind of response gets.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { withoutVariants } from '#app/server/compression/precompressed';
import { decodedPath } from './entry-refusals';

/**
 * The files the built server serves as they are from `.output/public` (favicon, styles, the
 * client build), listed once at start: the load shedder lets them through, since sending a
 * file is cheap and a page that arrived without its assets is worse than no page. The
 * precompressed variants beside them (`x.js.br`, `x.js.gz`) are not listed: they are
 * encodings of `x.js`, sent for it by `Accept-Encoding`, not paths to request.
 */
/** A public folder is a handful of files; past this, something is wrong and the rest waits. */
const MAX_LISTED = 20_000;

/** URL paths (`/favicon.svg`) of every file under `root`; empty when it cannot be read. */
export function listPublicFiles(root: string): Set<string> {
  const files = new Set<string>();
  const walk = (dir: string, prefix: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (files.size >= MAX_LISTED) return;
      const path = `${prefix}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), path);
      else files.add(path);
    }
  };
  walk(root, '');
  return withoutVariants(files);
}

/**
 * `Cache-Control` for every response the server's entry hands on, in one place. Pure: the
 * path and whether it is a public file decide. Handlers that know better set their own
 * (`/health` and the entry's refusals say `no-store`; the tunnel passes Sentry's answer on).
 * Decision: docs/decisions/0820-precompressed-assets.md.
 */
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
