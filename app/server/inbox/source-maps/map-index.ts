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
