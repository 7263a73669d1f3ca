/**
 * Where the inbox finds a chunk's source map: the stores' interface, the index of maps by debug
 * ID and file, and the debug images an event names; then a build output directory as a store,
 * and the build's own maps (the client's and the server's) that the inbox reads through it.
 */
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FlattenMap, TraceMap } from '@jridgewell/trace-mapping';
import { LRUCache } from 'lru-cache';
import { isRecord } from '#app/server/inbox/envelope';
import { processShared } from '#app/start-1.120/process-shared.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'build-maps': Map<string, BuildMaps>;
  }
}

/**
 * Where parsed source maps come from. The resolver asks by the debug id an event names, or by
 * the chunk's path when the event names none; a store answers with a parsed map or a short
 * reason. The directory store (`createDirectoryMapStore`, below) is the real one; tests and a
 * later Sentry-less upload path can supply others.
 */
export type MapLookup =
  | {
      found: true;
      map: TraceMap;
      debugId?: string;
      /** The chunk's own lines, when the store has the chunk: function names are read there. */
      chunkLines?: readonly string[];
    }
  | { found: false; reason: string };

export interface SourceMapStore {
  /** The map built with this debug id (a lowercase uuid). */
  byDebugId(debugId: string): Promise<MapLookup>;
  /**
   * The map for a chunk by its URL path (under "/_build/assets/"); the build's stores
   * compare names only. `url` is the frame's whole URL: the dev server's modules are told apart
   * by their query too ("index.tsx?tsr-split=component").
   */
  byChunkPath(path: string, url?: string): Promise<MapLookup>;
}

export const NO_MAP = 'no map for this file';

/** Several stores asked in turn (client maps, server maps): the first that finds one answers. */
export function firstOfStores(stores: readonly SourceMapStore[]): SourceMapStore {
  const first = async (ask: (store: SourceMapStore) => Promise<MapLookup>): Promise<MapLookup> => {
    let miss: MapLookup = { found: false, reason: NO_MAP };
    for (const store of stores) {
      const lookup = await ask(store);
      if (lookup.found) return lookup;
      if (lookup.reason !== NO_MAP) miss = lookup;
    }
    return miss;
  };
  return {
    byDebugId: (debugId) => first((store) => store.byDebugId(debugId)),
    byChunkPath: (path, url) => first((store) => store.byChunkPath(path, url)),
  };
}

/**
 * The index a directory scan builds: each `*.map` file found, by debug id and by the chunk
 * file name it maps (a chunk's hashed name, for its map beside it with ".map" added). Pure. Only files in this
 * index are ever opened, so nothing an event says can name a file to read.
 */

export interface ScannedMap {
  /** Relative to the store's root, with "/" separators, as the scan found it. */
  file: string;
  bytes: number;
  /** Lowercase uuid, when the map has one. */
  debugId?: string;
  /** Why the file cannot be used ("map larger than 50 MB"), when it cannot. */
  skipped?: string;
}

export type IndexHit = { found: true; entry: ScannedMap } | { found: false; reason: string };

export class MapIndex {
  readonly #byDebugId = new Map<string, ScannedMap>();
  readonly #byChunkName = new Map<string, ScannedMap[]>();

  constructor(readonly entries: readonly ScannedMap[]) {
    for (const entry of entries) {
      if (entry.debugId && !this.#byDebugId.has(entry.debugId)) {
        this.#byDebugId.set(entry.debugId, entry);
      }
      const chunk = baseName(entry.file).replace(/\.map$/, '');
      this.#byChunkName.set(chunk, [...(this.#byChunkName.get(chunk) ?? []), entry]);
    }
  }

  byDebugId(debugId: string): IndexHit {
    return usable(this.#byDebugId.get(debugId.toLowerCase()));
  }

  /**
   * By the chunk's file name. Client chunk names carry a content hash and are unique; server
   * chunk names are not (nitro's entry name recurs in several folders), so when several maps share the name
   * the one whose own path is the longest tail of the URL path wins, and a tie answers nothing
   * rather than a wrong map.
   */
  byChunkPath(urlPath: string): IndexHit {
    const candidates = this.#byChunkName.get(baseName(urlPath));
    if (!candidates) return { found: false, reason: 'no map for this file' };
    if (candidates.length === 1) return usable(candidates[0]);
    const scored = candidates
      .map((entry) => ({ entry, score: sharedTail(entry.file.replace(/\.map$/, ''), urlPath) }))
      .sort((a, b) => b.score - a.score);
    const [best, next] = scored;
    if (!best || (next && next.score === best.score)) {
      return { found: false, reason: 'several maps could be this file' };
    }
    return usable(best.entry);
  }
}

function usable(entry: ScannedMap | undefined): IndexHit {
  if (!entry) return { found: false, reason: 'no map for this file' };
  if (entry.skipped) return { found: false, reason: entry.skipped };
  return { found: true, entry };
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** How many trailing path segments two paths share. */
function sharedTail(a: string, b: string): number {
  const left = a.split('/').reverse();
  const right = b.split('/').reverse();
  let count = 0;
  while (count < left.length && count < right.length && left[count] === right[count]) count += 1;
  return count;
}

/**
 * The event's `debug_meta.images` of type "sourcemap": which chunk (`code_file`, the frame's
 * filename) was built with which debug id. The SDK adds them from the `_sentryDebugIds` the
 * build injects (@sentry/core `applyDebugMeta`). Untrusted: only well-formed ids are kept.
 */
export interface DebugImage {
  codeFile: string;
  /** Lowercase uuid. */
  debugId: string;
}

/** A debug id is a uuid; sentry-cli and Rollup write it lowercase, some tools uppercase. */
const DEBUG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The SDK adds one image per chunk on the stack: 50 frames at most, so 50 chunks. */
const MAX_IMAGES = 100;

export function isDebugId(value: unknown): value is string {
  return typeof value === 'string' && DEBUG_ID.test(value);
}

/** The images of a raw event payload (the JSON object), in order, well-formed ones only. */
export function debugImagesOf(event: unknown): DebugImage[] {
  const meta = isRecord(event) ? event.debug_meta : undefined;
  const images = isRecord(meta) ? meta.images : undefined;
  if (!Array.isArray(images)) return [];
  const result: DebugImage[] = [];
  for (const image of images.slice(0, MAX_IMAGES)) {
    if (!isRecord(image) || image.type !== 'sourcemap') continue;
    const { code_file: codeFile, debug_id: debugId } = image;
    if (typeof codeFile !== 'string' || codeFile === '' || !isDebugId(debugId)) continue;
    result.push({ codeFile, debugId: debugId.toLowerCase() });
  }
  return result;
}

/** The debug id the event gives for a frame's file, matched exactly as the SDK wrote both. */
export function debugIdFor(filename: string, images: readonly DebugImage[]): string | undefined {
  const image: unknown = images.find((item) => isRecord(item) && item.codeFile === filename);
  return isRecord(image) && typeof image.debugId === 'string' ? image.debugId : undefined;
}

// A build output directory as a store.

// Source maps read from a build's output directory (`.output/sourcemaps/client`, the server
// chunks' folder), lazily: nothing is read until the first frame needs a map.
//
// - The scan, on first need, walks the root once (no symlinks followed, bounded in depth and
//   count) and parses each `*.map` to learn its `debugId`. Parsing, not a regex over the first
//   few KB: Rollup and the Sentry plugins write `debugId` LAST, after `sourcesContent`, so the
//   head of the file does not have it, and only a parse tells a top-level key from text inside
//   a string. It costs one JSON.parse per map per process (maps change only with a rebuild,
//   which restarts the server); the parsed JSON is dropped at once.
// - A map is then loaded only when a frame needs it, and kept in an LRU bounded by count and
//   by bytes.
// - Only files the scan found are ever opened: event data (a debug id, a URL) only selects
//   among them and is never joined into a path. Files over MAX_MAP_BYTES are never read whole.

/** Larger than any map a sane build writes (react-dom's with sources is ~3 MB); refuses a planted giant. */
export const MAX_MAP_BYTES = 50 * 1024 * 1024;
/** An event touches a handful of chunks; 16 covers several events' worth without growing. */
export const MAX_CACHED_MAPS = 16;
/** By file size: a parsed map with decoded mappings takes a few times its JSON in memory. */
export const MAX_CACHED_BYTES = 32 * 1024 * 1024;
/** A build output is a few folders deep and has hundreds of files, not hundreds of thousands. */
export const MAX_SCAN_DEPTH = 12;
export const MAX_SCAN_FILES = 20_000;

/** What the store needs of the file system: given so tests can watch every file opened. */
export interface MapFileSystem {
  /** Entries of a directory; symlinks are neither directories nor files here. */
  list(dir: string): Promise<Array<{ name: string; isDirectory: boolean; isFile: boolean }>>;
  /** The file's text, or undefined when it is larger than `maxBytes` (then not read at all). */
  read(path: string, maxBytes: number): Promise<string | undefined>;
}

export const nodeMapFileSystem: MapFileSystem = {
  async list(dir) {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.map((entry) => ({
      name: entry.name,
      isDirectory: entry.isDirectory(),
      isFile: entry.isFile(),
    }));
  },
  async read(path, maxBytes) {
    // O_NOFOLLOW: a file swapped for a symlink after the scan is refused, not followed.
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const { size } = await handle.stat();
      if (size > maxBytes) return undefined;
      return await handle.readFile({ encoding: 'utf8' });
    } finally {
      await handle.close();
    }
  },
};

export interface DirectoryMapStoreOptions {
  root: string;
  /**
   * Where the chunks are, at the maps' relative paths without `.map` (the browser's chunks in
   * `.output/public`, their maps moved out of it): a chunk's text is read with its map, so a
   * frame's function can be named by its declaration (`declaredFunctionName`, ./resolve-frame.ts). None: maps only.
   */
  chunksRoot?: string;
  fileSystem?: MapFileSystem;
  maxMapBytes?: number;
  maxCachedMaps?: number;
  maxCachedBytes?: number;
}

export interface DirectoryMapStore extends SourceMapStore {
  /** For tests and the benchmark: what is held now. */
  cacheStats(): { maps: number; bytes: number };
}

export function createDirectoryMapStore(options: DirectoryMapStoreOptions): DirectoryMapStore {
  const root = resolve(options.root);
  const fileSystem = options.fileSystem ?? nodeMapFileSystem;
  const maxMapBytes = options.maxMapBytes ?? MAX_MAP_BYTES;
  // A map heavier than the whole budget is not kept (lru-cache's maxEntrySize): it is read
  // again when next needed, as any map is once evicted.
  const chunksRoot = options.chunksRoot === undefined ? undefined : resolve(options.chunksRoot);
  const cache = new LRUCache<string, LoadedMap>({
    max: options.maxCachedMaps ?? MAX_CACHED_MAPS,
    maxSize: options.maxCachedBytes ?? MAX_CACHED_BYTES,
  });
  const loading = new Map<string, Promise<MapLookup>>();
  let index: Promise<MapIndex> | undefined;

  const indexed = (): Promise<MapIndex> => {
    index ??= scan(root, fileSystem, maxMapBytes);
    return index;
  };

  const load = (entry: ScannedMap, expectedDebugId?: string): Promise<MapLookup> => {
    const cached = cache.get(entry.file);
    if (cached) return Promise.resolve(found(cached, entry.debugId));
    let pending = loading.get(entry.file);
    if (!pending) {
      pending = readMap(pathIn(root, entry.file), fileSystem, maxMapBytes).then(async (read) => {
        if (read.found && chunksRoot !== undefined) {
          const chunk = await readChunk(chunksRoot, entry.file, fileSystem, maxMapBytes);
          if (chunk) {
            read.chunkLines = chunk.split('\n');
            read.bytes += Buffer.byteLength(chunk);
          }
        }
        loading.delete(entry.file);
        if (read.found) cache.set(entry.file, read, { size: read.bytes });
        return read;
      });
      loading.set(entry.file, pending);
    }
    return pending.then((read) => {
      // The file was rebuilt since the scan: its map is another build's now.
      if (read.found && expectedDebugId && read.debugId !== expectedDebugId) {
        return { found: false, reason: 'map for another build' };
      }
      return read;
    });
  };

  return {
    async byDebugId(debugId) {
      if (!isDebugId(debugId)) return { found: false, reason: 'no map for this file' };
      const hit = (await indexed()).byDebugId(debugId);
      return hit.found ? load(hit.entry, debugId.toLowerCase()) : hit;
    },
    async byChunkPath(path) {
      const hit = (await indexed()).byChunkPath(path);
      return hit.found ? load(hit.entry) : hit;
    },
    cacheStats: () => ({ maps: cache.size, bytes: cache.calculatedSize }),
  };
}

async function scan(
  root: string,
  fileSystem: MapFileSystem,
  maxMapBytes: number,
): Promise<MapIndex> {
  const entries: ScannedMap[] = [];
  const folders: Array<{ relative: string; depth: number }> = [{ relative: '', depth: 0 }];
  let seen = 0;
  for (let folder = folders.shift(); folder && seen < MAX_SCAN_FILES; folder = folders.shift()) {
    let listed: Awaited<ReturnType<MapFileSystem['list']>>;
    try {
      listed = await fileSystem.list(pathIn(root, folder.relative));
    } catch {
      continue; // A missing root (no build yet) is an empty index, not an error.
    }
    for (const item of listed) {
      seen += 1;
      if (seen > MAX_SCAN_FILES) break;
      const relative = folder.relative ? `${folder.relative}/${item.name}` : item.name;
      if (item.isDirectory && folder.depth < MAX_SCAN_DEPTH) {
        folders.push({ relative, depth: folder.depth + 1 });
      } else if (item.isFile && item.name.endsWith('.map')) {
        entries.push(await scanned(root, relative, fileSystem, maxMapBytes));
      }
    }
  }
  return new MapIndex(entries);
}

async function scanned(
  root: string,
  file: string,
  fileSystem: MapFileSystem,
  maxMapBytes: number,
): Promise<ScannedMap> {
  const read = await readMap(pathIn(root, file), fileSystem, maxMapBytes);
  if (!read.found) return { file, bytes: 0, skipped: read.reason };
  const entry: ScannedMap = { file, bytes: read.bytes };
  if (read.debugId) entry.debugId = read.debugId;
  return entry;
}

interface LoadedMap {
  found: true;
  map: TraceMap;
  debugId?: string;
  bytes: number;
  chunkLines?: readonly string[];
}

type ReadMap = LoadedMap | { found: false; reason: string };

/** The chunk a map is of, at its path without `.map`; none when missing, unreadable or too big. */
async function readChunk(
  chunksRoot: string,
  mapFile: string,
  fileSystem: MapFileSystem,
  maxBytes: number,
): Promise<string | undefined> {
  try {
    return await fileSystem.read(pathIn(chunksRoot, mapFile.replace(/\.map$/, '')), maxBytes);
  } catch {
    return undefined;
  }
}

async function readMap(
  path: string,
  fileSystem: MapFileSystem,
  maxMapBytes: number,
): Promise<ReadMap> {
  let text: string | undefined;
  try {
    text = await fileSystem.read(path, maxMapBytes);
  } catch {
    return { found: false, reason: 'source map could not be read' };
  }
  if (text === undefined) {
    return { found: false, reason: `map larger than ${sizeText(maxMapBytes)}` };
  }
  try {
    const json: unknown = JSON.parse(text);
    if (!isRecord(json) || json.version !== 3)
      return { found: false, reason: 'unreadable source map' };
    // Rollup writes `debugId`; sentry-cli writes both `debugId` and `debug_id`.
    const id = isDebugId(json.debugId)
      ? json.debugId
      : isDebugId(json.debug_id)
        ? json.debug_id
        : undefined;
    const map = Array.isArray(json.sections)
      ? new FlattenMap(json as never)
      : new TraceMap(json as never);
    const result: ReadMap = { found: true, map, bytes: Buffer.byteLength(text) };
    if (id) result.debugId = id.toLowerCase();
    return result;
  } catch {
    return { found: false, reason: 'unreadable source map' };
  }
}

/** `relative` comes only from the scan's own listing; the check is a second line of defence. */
function pathIn(root: string, relative: string): string {
  const path = join(root, relative);
  if (path !== root && !path.startsWith(root + sep)) throw new Error('path outside the map root');
  return path;
}

function sizeText(bytes: number): string {
  const mb = bytes / 1024 / 1024;
  return mb >= 1 ? `${Math.round(mb)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

function found(loaded: LoadedMap, debugId: string | undefined): MapLookup {
  const lookup: MapLookup = { found: true, map: loaded.map };
  if (debugId) lookup.debugId = debugId;
  if (loaded.chunkLines) lookup.chunkLines = loaded.chunkLines;
  return lookup;
}

// The maps of this server's own build (.output/sourcemaps), as the inbox's map store reads them.

/**
 * The build's source maps, one store per process (the pages' and the server functions' copies
 * of this module share it, see process-shared.server.ts): browser maps in
 * `.output/sourcemaps/client`, server maps beside the chunks in `.output/server`. Nothing is
 * read until a page needs a frame; the store's cache is bounded (`createDirectoryMapStore`).
 * Undefined under `vinxi dev`, which builds no maps: the dev server's own serve there
 * (`devBuildMaps` in app/server/failures/dev-failure.server.ts).
 */
export interface BuildMaps {
  store: SourceMapStore;
  projectRoot: string;
  /** The built server's folder; none under `vinxi dev`, whose server frames are all original. */
  serverOutputDir?: string;
}

export function buildMaps(): BuildMaps | undefined {
  const output = buildOutputOf(import.meta.url);
  if (!output) return undefined;
  const byServerDir = processShared('build-maps', () => new Map<string, BuildMaps>());
  let maps = byServerDir.get(output.serverDir);
  if (!maps) {
    maps = openMaps(output);
    byServerDir.set(output.serverDir, maps);
  }
  return maps;
}

function openMaps(output: BuildOutput): BuildMaps {
  return {
    store: firstOfStores([
      createDirectoryMapStore({ root: output.clientMapsDir, chunksRoot: output.publicDir }),
      createDirectoryMapStore({ root: output.serverDir }),
    ]),
    projectRoot: output.projectRoot,
    serverOutputDir: output.serverDir,
  };
}

/**
 * Where the build's maps are, from the running server's own location. In the built server
 * every chunk's `import.meta.url` is the built server entry's (nitro rewrites it
 * to `globalThis._importMeta_.url`), the way node-server.server.ts finds `../public`. Under
 * `vinxi dev` it is the source module's own URL: there is no build, and no maps. Pure.
 */
export interface BuildOutput {
  /** `.output/sourcemaps/client`: the browser chunks' maps (build/move-source-maps.ts). */
  clientMapsDir: string;
  /** `.output/public`: the browser chunks, whose maps are in `clientMapsDir`. */
  publicDir: string;
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
    publicDir: join(output, 'public'),
    serverDir: join(output, 'server'),
    projectRoot: dirname(output),
  };
}
