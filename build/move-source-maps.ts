/**
 * Source maps are never served. After vinxi has copied every router's output into
 * `.output/public`, the client's maps move to `.output/sourcemaps/client/` (same relative path,
 * e.g. `_build/assets/client-….js.map`), where an upload step or a person can read them; the
 * maps that vite wrote for the server routers (copied along with their assets) are removed:
 * nitro's server maps in `.output/server` already contain them.
 * Decision: docs/decisions/0700-client-source-maps-and-debug-ids.md.
 */
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

export interface MovedMaps {
  moved: string[];
  removed: string[];
}

/** Moves `clientBase` maps out of `publicDir` into `mapsDir`; removes every other map there. */
export function moveSourceMaps(publicDir: string, mapsDir: string, clientBase: string): MovedMaps {
  const result: MovedMaps = { moved: [], removed: [] };
  // vinxi empties .output/public and .output/server, not this: no map of an older build stays.
  rmSync(mapsDir, { recursive: true, force: true });
  const clientPrefix = `${clientBase.replace(/^\/+|\/+$/g, '')}/`;
  for (const file of mapFilesUnder(publicDir)) {
    const path = relative(publicDir, file).split(sep).join('/');
    if (path.startsWith(clientPrefix)) {
      const target = join(mapsDir, path);
      mkdirSync(dirname(target), { recursive: true });
      renameSync(file, target);
      result.moved.push(path);
    } else {
      rmSync(file);
      result.removed.push(path);
    }
  }
  return result;
}

function mapFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.map'))
    .map((entry) => join(entry.parentPath, entry.name));
}
