/**
 * The server's source maps without repeated mappings. nitro's replace step writes a mapping for
 * nearly every character of each module it changes (`@rollup/plugin-replace` maps `hires: true`),
 * and traced back through vite's maps most of them repeat the mapping before them: the main
 * chunk's map had 733,023 mappings for 917,290 bytes of code. Node decodes the server's maps
 * before it listens (decision 0701) and keeps them: 77 MB of heap for that one map, in a heap
 * the garbage collector marks whole (docs/performance.md). A mapping that repeats the previous
 * one on its line (same source, line and column, no name) tells a lookup nothing new: without
 * it every position maps where it did (197,191 mappings, 21 MB decoded).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  decodedMappings,
  type EncodedSourceMap,
  encodedMappings,
  TraceMap,
} from '@jridgewell/trace-mapping';

type Segment = readonly number[];

/** Whether `segment` maps to the same source, line and column as `previous`, neither naming. */
function repeats(segment: Segment, previous: Segment | undefined): boolean {
  return (
    previous !== undefined &&
    segment.length === 4 &&
    previous.length === 4 &&
    segment[1] === previous[1] &&
    segment[2] === previous[2] &&
    segment[3] === previous[3]
  );
}

/**
 * `map` with each mapping that repeats the one before it on its generated line left out. The
 * map's very last mapping stays whatever it repeats: Node 20's parser gives that one a name from
 * the map's `names` even when it has none, so a frame there keeps the name it had.
 */
export function withoutRepeatedMappings(map: EncodedSourceMap): EncodedSourceMap {
  const decoded = decodedMappings(new TraceMap(map));
  const lastLine = decoded.findLastIndex((line) => line.length > 0);
  const lines = decoded.map((line, l) =>
    line.filter(
      (segment, i) => (l === lastLine && i === line.length - 1) || !repeats(segment, line[i - 1]),
    ),
  );
  return { ...map, mappings: encodedMappings(new TraceMap({ ...map, mappings: lines })) };
}

/** Rewrites every `.map` under `serverDir` (its node_modules aside) without repeated mappings. */
export function compactServerSourceMaps(serverDir: string): {
  files: number;
  /** Mappings before and after, over every map. */
  mappings: [number, number];
} {
  let before = 0;
  let after = 0;
  let files = 0;
  for (const entry of readdirSync(serverDir, { withFileTypes: true, recursive: true })) {
    const dir = entry.parentPath;
    if (!entry.isFile() || !entry.name.endsWith('.map') || dir.includes('node_modules')) continue;
    const file = join(dir, entry.name);
    const map = JSON.parse(readFileSync(file, 'utf8')) as EncodedSourceMap;
    const compact = withoutRepeatedMappings(map);
    before += mappingCount(map.mappings);
    after += mappingCount(compact.mappings);
    writeFileSync(file, JSON.stringify(compact));
    files += 1;
  }
  return { files, mappings: [before, after] };
}

function mappingCount(mappings: string): number {
  return mappings.split(/[;,]/).filter(Boolean).length;
}
