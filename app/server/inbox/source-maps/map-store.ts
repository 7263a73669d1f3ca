/**
 * Where the inbox finds a chunk's source map: the store's interface, the index of maps by debug
 * ID and file, and the debug images an event names.
 */
import type { TraceMap } from '@jridgewell/trace-mapping';
import { isRecord } from '#app/server/inbox/envelope';

/**
 * Where parsed source maps come from. The resolver asks by the debug id an event names, or by
 * the chunk's path when the event names none; a store answers with a parsed map or a short
 * reason. The directory store (directory-map-store.server.ts) is the real one; tests and a
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
   * The map for a chunk by its URL path ("/_build/assets/index-abc.js"); the build's stores
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
 * file name it maps ("index-abc.js" for "assets/index-abc.js.map"). Pure. Only files in this
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
   * chunk names are not ("index.mjs" in several folders), so when several maps share the name
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
