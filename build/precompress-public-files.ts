/**
 * Writes a brotli (`.br`) and a gzip (`.gz`) copy beside every compressible file in
 * `.output/public`, at the highest levels (the build pays once, every visit gains), for nitro's
 * static handler to send by `Accept-Encoding`. Runs after the source maps left and after vinxi
 * removed the server routers' code from the public folder: nitro's own `compressPublicAssets`
 * runs before that removal and would publish the server's code as `.br`/`.gz`
 * (docs/decisions/0820-precompressed-assets.md). Files for tools (the vite manifest) get no
 * variant; a variant that is not smaller than its file is not written.
 */

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import {
  identityPathOf,
  isCompressible,
  isHiddenBuildFile,
} from '../app/server/node/public-files.server';

export interface Precompressed {
  /** URL path of each file that got variants, e.g. `/_build/assets/app-….js`. */
  files: string[];
  bytes: { identity: number; br: number; gzip: number };
}

export function precompressPublicFiles(publicDir: string): Precompressed {
  const result: Precompressed = { files: [], bytes: { identity: 0, br: 0, gzip: 0 } };
  for (const file of filesUnder(publicDir)) {
    const path = `/${relative(publicDir, file).split(sep).join('/')}`;
    if (!shouldPrecompress(path)) continue;
    const content = readFileSync(file);
    const br = brotliCompressSync(content, {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
      },
    });
    const gzip = gzipSync(content, { level: constants.Z_BEST_COMPRESSION });
    let wrote = false;
    if (br.length < content.length) {
      writeFileSync(`${file}.br`, br);
      result.bytes.br += br.length;
      wrote = true;
    }
    if (gzip.length < content.length) {
      writeFileSync(`${file}.gz`, gzip);
      result.bytes.gzip += gzip.length;
      wrote = true;
    }
    if (wrote) {
      result.files.push(path);
      result.bytes.identity += content.length;
    }
  }
  return result;
}

/** A text file for visitors that is not itself a variant. */
export function shouldPrecompress(path: string): boolean {
  return isCompressible(path) && identityPathOf(path) === undefined && !isHiddenBuildFile(path);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}
