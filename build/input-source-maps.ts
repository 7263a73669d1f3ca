/**
 * A rollup plugin for nitro's server build: it hands rollup the source map that vite wrote
 * beside each router's output in `.vinxi/build`, so that the maps nitro emits lead back to our
 * TypeScript instead of stopping at vite's intermediate chunks (rollup does not read existing
 * `sourceMappingURL` comments by itself).
 * Decision: docs/decisions/0701-server-source-maps.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Plugin } from 'vite';

/** Only vite's router output: nitro's own and node_modules files go through rollup as before. */
export function isRouterOutput(id: string): boolean {
  return /[\\/]\.vinxi[\\/]build[\\/].+\.m?js$/.test(id);
}

export function inputSourceMaps(): Plugin {
  return {
    name: 'input-source-maps',
    load(id) {
      if (!isRouterOutput(id) || !existsSync(`${id}.map`)) return null;
      return { code: readFileSync(id, 'utf8'), map: readFileSync(`${id}.map`, 'utf8') };
    },
  };
}
