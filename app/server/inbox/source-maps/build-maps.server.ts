/**
 * The maps of this server's own build (.output/sourcemaps), as the inbox's map store reads them.
 */

import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processShared } from '#app/server/process-shared.server';
import { createDirectoryMapStore } from './directory-map-store.server';
import { firstOfStores, type SourceMapStore } from './map-store';

/**
 * The build's source maps, one store per process (the pages' and the server functions' copies
 * of this module share it, see process-shared.server.ts): browser maps in
 * `.output/sourcemaps/client`, server maps beside the chunks in `.output/server`. Nothing is
 * read until a page needs a frame; the store's cache is bounded (directory-map-store.server.ts).
 * Undefined under `vinxi dev`, which builds no maps: the dev server's own serve there
 * (`devBuildMaps` in app/server/failures/dev-overlay.server.ts).
 */
export interface BuildMaps {
  store: SourceMapStore;
  projectRoot: string;
  /** The built server's folder; none under `vinxi dev`, whose server frames are all original. */
  serverOutputDir?: string;
}

export function buildMaps(): BuildMaps | undefined {
  const output = buildOutputOf(import.meta.url);
  return output
    ? processShared(`build-maps:${output.serverDir}`, () => openMaps(output))
    : undefined;
}

function openMaps(output: BuildOutput): BuildMaps {
  return {
    store: firstOfStores([
      createDirectoryMapStore({ root: output.clientMapsDir }),
      createDirectoryMapStore({ root: output.serverDir }),
    ]),
    projectRoot: output.projectRoot,
    serverOutputDir: output.serverDir,
  };
}

/**
 * Where the build's maps are, from the running server's own location. In the built server
 * every chunk's `import.meta.url` is the entry's, `.output/server/index.mjs` (nitro rewrites it
 * to `globalThis._importMeta_.url`), the way node-server.server.ts finds `../public`. Under
 * `vinxi dev` it is the source module's own URL: there is no build, and no maps. Pure.
 */
export interface BuildOutput {
  /** `.output/sourcemaps/client`: the browser chunks' maps (build/move-source-maps.ts). */
  clientMapsDir: string;
  /** `.output/server`: the server chunks, their maps beside them. */
  serverDir: string;
  /** The folder `.output` is in: absolute sources under it are shown project-relative. */
  projectRoot: string;
}

export function buildOutputOf(moduleUrl: string): BuildOutput | undefined {
  let path: string;
  try {
    path = fileURLToPath(moduleUrl);
  } catch {
    return undefined; // Not a file: URL.
  }
  if (basename(path) !== 'index.mjs' || basename(dirname(path)) !== 'server') return undefined;
  const output = dirname(dirname(path));
  return {
    clientMapsDir: join(output, 'sourcemaps', 'client'),
    serverDir: join(output, 'server'),
    projectRoot: dirname(output),
  };
}
