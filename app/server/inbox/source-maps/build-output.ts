/**
 * Where the build's maps are, from the running server's own location. In the built server
 * every chunk's `import.meta.url` is the entry's, `.output/server/index.mjs` (nitro rewrites it
 * to `globalThis._importMeta_.url`), the way node-server.server.ts finds `../public`. Under
 * `vinxi dev` it is the source module's own URL: there is no build, and no maps. Pure.
 */
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
