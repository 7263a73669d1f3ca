/**
 * Files in the build's public folder that are for the server and tools, not for visitors:
 * vite's manifests (they map every source file to its chunk) and source maps, in any encoding
 * (`manifest.json.br`, `x.js.map.gz`). The build moves maps out of `.output/public`
 * (build/move-source-maps.ts) and compresses neither (build/precompress-public-files.ts); this
 * is the second line of defence, under the client's `/_build/` and the server routers'
 * `/assets/` that vinxi copies there.
 */
import { identityPathOf } from '../compression/precompressed';
import { decodedPath } from './decoded-path';

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
