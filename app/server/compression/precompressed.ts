/**
 * Precompressed public files: the build writes `x.js.br` and `x.js.gz` beside `x.js`
 * (build/precompress-public-files.ts), and nitro's static handler sends the variant that the
 * request's `Accept-Encoding` allows. Shared by the build and the server, so both agree on
 * which names are variants. Decision: docs/decisions/0820-precompressed-assets.md.
 */
import { decodedPath } from '../node/entry-refusals';

/** File suffix → `Content-Encoding`, in the names nitro's static handler looks for. */
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

/** `x.js` for `x.js.br` or `x.js.gz`; undefined for a name that is not a variant's. */
export function identityPathOf(path: string): string | undefined {
  for (const suffix of Object.keys(PRECOMPRESSED_SUFFIXES)) {
    if (path.endsWith(suffix) && path.length > suffix.length) return path.slice(0, -suffix.length);
  }
  return undefined;
}

/** Whether the build should write variants of this file (a URL path such as `/_build/x.js`). */
export function isCompressible(path: string): boolean {
  const dot = path.lastIndexOf('.');
  if (dot === -1 || dot < path.lastIndexOf('/')) return false;
  return COMPRESSIBLE_EXTENSIONS.has(path.slice(dot).toLowerCase());
}

/**
 * A request naming a variant itself (`/_build/x.js.br`) rather than the file: the variants are
 * encodings of `x.js`, chosen by `Accept-Encoding`, not resources of their own. Sent directly,
 * a `.br` would reach clients that never said they can read brotli.
 */
export function isVariantRequest(path: string, publicFiles: ReadonlySet<string>): boolean {
  const identity = identityPathOf(decodedPath(path));
  return identity !== undefined && publicFiles.has(identity);
}

/** Drops `x.js.br` and `x.js.gz` where `x.js` is listed; a lone `data.tar.gz` stays a file. */
export function withoutVariants(files: ReadonlySet<string>): Set<string> {
  const listed = new Set<string>();
  for (const path of files) {
    const identity = identityPathOf(path);
    if (identity === undefined || !files.has(identity)) listed.add(path);
  }
  return listed;
}
