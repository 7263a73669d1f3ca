/**
 * The build's source maps, one store per process (the pages' and the server functions' copies
 * of this module share it, see process-shared.server.ts): browser maps in
 * `.output/sourcemaps/client`, server maps beside the chunks in `.output/server`. Nothing is
 * read until a page needs a frame; the store's cache is bounded (directory-map-store.server.ts).
 * Undefined under `vinxi dev`, which builds no maps: the dev server's own serve there
 * (`devBuildMaps` in app/server/failures/dev-overlay.server.ts).
 */
import { processShared } from '#app/server/process-shared.server';
import { type BuildOutput, buildOutputOf } from './build-output';
import { createDirectoryMapStore } from './directory-map-store.server';
import { firstOfStores, type SourceMapStore } from './map-store';

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
