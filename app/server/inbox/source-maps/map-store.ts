/**
 * Where parsed source maps come from. The resolver asks by the debug id an event names, or by
 * the chunk's path when the event names none; a store answers with a parsed map or a short
 * reason. The directory store (directory-map-store.server.ts) is the real one; tests and a
 * later Sentry-less upload path can supply others.
 */
import type { TraceMap } from '@jridgewell/trace-mapping';

export type MapLookup =
  | { found: true; map: TraceMap; debugId?: string }
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
