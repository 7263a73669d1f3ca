/**
 * What the production build wrote for the browser: the served chunks in
 * `.output/public/_build/assets` and the maps kept back in `.output/sourcemaps/client`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const OUTPUT = resolve(import.meta.dirname, '../../.output');
export const PUBLIC_DIR = join(OUTPUT, 'public');
export const CLIENT_ASSETS_DIR = join(PUBLIC_DIR, '_build/assets');
export const CLIENT_MAPS_DIR = join(OUTPUT, 'sourcemaps/client');

export interface ClientChunk {
  /** The chunk's file name in CLIENT_ASSETS_DIR: its name and content hash, then `.js`. */
  name: string;
  code: string;
}

export interface ClientMap {
  /** Relative to CLIENT_MAPS_DIR: the chunk's path under the public folder, then `.map`. */
  path: string;
  debugId: string | undefined;
}

export function clientChunks(): ClientChunk[] {
  return readdirSync(CLIENT_ASSETS_DIR)
    .filter((name) => name.endsWith('.js'))
    .map((name) => ({ name, code: readFileSync(join(CLIENT_ASSETS_DIR, name), 'utf8') }));
}

export function clientMaps(): ClientMap[] {
  return filesUnder(CLIENT_MAPS_DIR)
    .filter((file) => file.endsWith('.map'))
    .map((file) => ({
      path: relative(CLIENT_MAPS_DIR, file),
      debugId: (JSON.parse(readFileSync(file, 'utf8')) as { debugId?: string }).debugId,
    }));
}

/** Every file under a folder, recursively (absolute paths). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The chunk's `//# debugId=` comment, and the id its injected snippet registers. */
export function debugIdsOf(code: string): { comment?: string; snippet?: string } {
  return {
    comment: /\/\/# debugId=([0-9a-f-]{36})\s*$/.exec(code)?.[1],
    snippet: /_sentryDebugIdIdentifier="sentry-dbid-([0-9a-f-]{36})"/.exec(code)?.[1],
  };
}
