/**
 * Decodes the source maps of the server's loaded chunks now, before the server listens.
 * Node decodes a chunk's map the first time a stack passes through it: for nitro's main chunk
 * (a 1.3 MB map) that took 155–235 ms, blocking the event loop at the first failure after a
 * start, when the failure's own report and every visitor were waiting. Here it costs the same
 * once, while nobody is waiting (docs/decisions/0701-server-source-maps.md).
 */
import { readdirSync } from 'node:fs';
import { findSourceMap } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The number of maps decoded: one per chunk under `serverDir` that is loaded and has a map. */
export function decodeLoadedSourceMaps(serverDir: string): number {
  let decoded = 0;
  // index.mjs and chunks/: node_modules beside them is copied as it is, with no maps.
  for (const file of [join(serverDir, 'index.mjs'), ...chunkFiles(join(serverDir, 'chunks'))]) {
    // Undefined for a chunk not loaded yet (its map is decoded at its first stack) or with no map.
    if (findSourceMap(pathToFileURL(file).href) !== undefined) decoded++;
  }
  return decoded;
}

function chunkFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.mjs'))
      files.push(join(entry.parentPath, entry.name));
  }
  return files;
}
