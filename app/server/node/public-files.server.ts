/**
 * The files the built server sends as they are: which exist (listed once at start), which names
 * are precompressed variants of them (.br, .gz; also used by the build), and the Cache-Control
 * each kind of response gets. The load shedder lets files through, since sending a file is
 * cheap and a page that arrived without its assets is worse than no page.
 */
import { readdirSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Negotiator from 'negotiator';

/** A public folder is a handful of files; past this, something is wrong and the rest waits. */
const MAX_LISTED = 20_000;

/**
 * URL paths (`/favicon.svg`) of every file under `root`, the build's public folder (favicon,
 * styles, the client build); empty when it cannot be read. The precompressed variants beside a
 * file (`<file>.br`, `<file>.gz`) are not listed: they are encodings of the file, sent for it by
 * `Accept-Encoding`, not paths to request.
 */
export function listPublicFiles(rootUrl: string | URL): Set<string> {
  const root = typeof rootUrl === 'string' ? rootUrl : fileURLToPath(rootUrl);
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
 * `Cache-Control` for a file whose name holds a hash of its content: a new build gives it a new
 * name. This and the three below are every value `cacheControlOf` gives (decision 0820).
 */
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
 * `Cache-Control` for every response the server's entry hands on, in one place. Pure: the
 * path and whether it is a public file decide. Handlers that know better set their own
 * (`/health` and the entry's refusals say `no-store`; the tunnel passes Sentry's answer on).
 * Decision: docs/decisions/0820-precompressed-assets.md.
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

/**
 * Precompressed public files: the build writes `<file>.br` and `<file>.gz` beside a file
 * (build/precompress-public-files.ts), and nitro's static handler sends the variant that the
 * request's `Accept-Encoding` allows. Shared by the build and the server, so both agree on
 * which names are variants. Decision: docs/decisions/0820-precompressed-assets.md.
 * File suffix → `Content-Encoding`, in the names nitro's static handler looks for.
 */
export const PRECOMPRESSED_SUFFIXES = { '.br': 'br', '.gz': 'gzip' } as const;

/**
 * Text formats, which compress well. Images, woff/woff2 fonts and archives are compressed
 * already; source maps are never public (build/move-source-maps.ts).
 */
const COMPRESSIBLE_EXTENSIONS = new Set([
  '.js',
  '.mjs',
  '.css',
  '.svg',
  '.json',
  '.webmanifest',
  '.html',
  '.txt',
  '.xml',
]);

/** `<file>` for `<file>.br` or `<file>.gz`; undefined for a name that is not a variant's. */
export function identityPathOf(path: string): string | undefined {
  for (const suffix of Object.keys(PRECOMPRESSED_SUFFIXES)) {
    if (path.endsWith(suffix) && path.length > suffix.length) return path.slice(0, -suffix.length);
  }
  return undefined;
}

/** Whether the build should write variants of this file (a URL path such as `/_build/assets/<chunk>.js`). */
export function isCompressible(path: string): boolean {
  const dot = path.lastIndexOf('.');
  if (dot === -1 || dot < path.lastIndexOf('/')) return false;
  return COMPRESSIBLE_EXTENSIONS.has(path.slice(dot).toLowerCase());
}

/**
 * A request naming a variant itself (`/_build/assets/<chunk>.js.br`) rather than the file: the
 * variants are encodings of the file, chosen by `Accept-Encoding`, not resources of their own. Sent directly,
 * a `.br` would reach clients that never said they can read brotli.
 */
export function isVariantRequest(path: string, publicFiles: ReadonlySet<string>): boolean {
  const identity = identityPathOf(decodedPath(path));
  return identity !== undefined && publicFiles.has(identity);
}

/** Drops `<file>.br` and `<file>.gz` where `<file>` is listed; a lone `data.tar.gz` stays a file. */
export function withoutVariants(files: ReadonlySet<string>): Set<string> {
  const listed = new Set<string>();
  for (const path of files) {
    const identity = identityPathOf(path);
    if (identity === undefined || !files.has(identity)) listed.add(path);
  }
  return listed;
}

/**
 * A request path as nitro's static handler and the router will read it: percent-decoded, so
 * that `/_build/%2Evite/…` is judged as `/_build/.vite/…`. A malformed escape stays as it came
 * (nothing decodes it into something else later).
 */
export function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * nitro's static handler reads Accept-Encoding as a plain list (`br;q=1` is not `br`, and `*`
 * nothing): it gets the codings the client accepts, by name, and sends brotli when both are.
 * x-gzip is gzip (RFC 9110 §8.4.1.3), a name negotiator does not know.
 */
export function negotiateEncoding(req: IncomingMessage): void {
  const header = req.headers['accept-encoding']?.replace(/\bx-gzip\b/gi, 'gzip');
  const accepted = new Negotiator({ headers: { 'accept-encoding': header } });
  req.headers['accept-encoding'] = accepted.encodings(['br', 'gzip']).join(', ');
}

/**
 * Files in the build's public folder that are for the server and tools, not for visitors:
 * vite's manifests (they map every source file to its chunk) and source maps, in any encoding
 * (a manifest's `.br`, a map's `.gz`). The build moves maps out of `.output/public`
 * (build/move-source-maps.ts) and compresses neither (build/precompress-public-files.ts); this
 * is the second line of defence, under the client's `/_build/` and the server routers'
 * `/assets/` that vinxi copies there.
 */
export function isHiddenBuildFile(path: string): boolean {
  const file = withoutEncodingSuffixes(withoutTrailingSlashes(decodedPath(path)));
  if (file.startsWith('/assets/')) return file.endsWith('.map');
  if (!file.startsWith('/_build/')) return false;
  return file.split('/').includes('.vite') || file.endsWith('.map');
}

/** nitro's static handler drops a trailing slash before it looks the file up. */
function withoutTrailingSlashes(path: string): string {
  return path.replace(/\/+$/, '');
}

function withoutEncodingSuffixes(path: string): string {
  let file = path;
  for (let identity = identityPathOf(file); identity; identity = identityPathOf(file)) {
    file = identity;
  }
  return file;
}
