/**
 * The files the built server serves as they are from `.output/public` (favicon, styles, the
 * client build), listed once at start: the load shedder lets them through, since sending a
 * file is cheap and a page that arrived without its assets is worse than no page. The
 * precompressed variants beside them (`x.js.br`, `x.js.gz`) are not listed: they are
 * encodings of `x.js`, sent for it by `Accept-Encoding`, not paths to request.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { withoutVariants } from '#app/server/compression/precompressed';

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
