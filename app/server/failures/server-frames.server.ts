/**
 * Server frames completed from the build's own maps where the server event is made, so the
 * log line, the local inbox and Sentry all get the same: the source lines around each of our
 * frames (from the map's `sourcesContent`) and the functions' original names (from its `names`,
 * where the bundle renamed them). The frames are Node's, already mapped to our TypeScript
 * (decision 0701); the maps are the ones Node loaded for that, found by `findSourceMap`: nothing
 * here reads a map file. Decision: docs/decisions/1110-server-frames-completed-where-the-event-is-made.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { findSourceMap } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  GREATEST_LOWER_BOUND,
  generatedPositionFor,
  sourceContentFor,
  TraceMap,
} from '@jridgewell/trace-mapping';
import type { StackFrame } from '@sentry/core';
import { buildOutputOf } from '#app/server/inbox/source-maps/map-store.server';
import {
  declaredFunctionName,
  type SourceContext,
  SourceLines,
} from '#app/server/inbox/source-maps/resolve-frame';
import { processShared } from '#app/start-1.120/process-shared.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'server-frame-index': { index: ChunkIndex | undefined };
    'server-source-lines': WeakMap<TraceMap, Map<string, SourceLines | null>>;
  }
}

interface ChunkIndex {
  /** Absolute source path → where the build has it. */
  bySource: Map<string, SourceInChunk[]>;
  /** Chunk files whose map Node had not loaded yet when last looked at. */
  pending: string[];
}

const shared = processShared('server-frame-index', () => ({
  index: undefined as ChunkIndex | undefined,
}));

/** The built server's chunks (its entry and chunks/): undefined under `vinxi dev`, which has none. */
function chunkIndex(): ChunkIndex | undefined {
  if (shared.index) return shared.index;
  const output = buildOutputOf(import.meta.url);
  if (!output) return undefined;
  let files: string[];
  try {
    files = [join(output.serverDir, 'index.mjs'), ...chunkFiles(join(output.serverDir, 'chunks'))];
  } catch {
    files = [];
  }
  shared.index = { bySource: new Map(), pending: files };
  return shared.index;
}

function chunkFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.mjs'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Indexes the chunks whose maps Node has loaded since the last look (a chunk loads once). */
function indexLoadedChunks(index: ChunkIndex): void {
  const still: string[] = [];
  for (const file of index.pending) {
    const payload = findSourceMap(pathToFileURL(file).href)?.payload;
    if (!payload) {
      still.push(file);
      continue;
    }
    const chunk = lazyChunk(file, payload);
    // Node made each source absolute (file: URLs, the bundler's query kept); frames name the path.
    for (const source of payload.sources) {
      const path = pathOf(source);
      if (!path || path.includes('/node_modules/')) continue;
      const places = index.bySource.get(path) ?? [];
      places.push({ chunk, source });
      index.bySource.set(path, places);
    }
  }
  index.pending = still;
}

/** The map is decoded, and the chunk's text read, only when a frame first needs them. */
function lazyChunk(file: string, payload: { mappings?: unknown }): ServerChunk {
  let map: TraceMap | undefined;
  let lines: string[] | undefined;
  return {
    mappingsLength: typeof payload.mappings === 'string' ? payload.mappings.length : 0,
    get map() {
      map ??= new TraceMap(payload as ConstructorParameters<typeof TraceMap>[0]);
      return map;
    },
    lines() {
      lines ??= readFileSync(file, 'utf8').split('\n');
      return lines;
    },
  };
}

function pathOf(source: string): string | undefined {
  try {
    return fileURLToPath(source.replace(/[?#].*$/, ''));
  } catch {
    return undefined;
  }
}

function placesOf(filename: string | undefined): SourceInChunk[] {
  if (!filename?.startsWith('/') || filename.includes('/node_modules/')) return [];
  const index = chunkIndex();
  if (!index) return [];
  // Also when the file is indexed already: a module the pages and the server functions both
  // import is in two chunks, and the server functions' chunk loads at their first call.
  if (index.pending.length > 0) indexLoadedChunks(index);
  return index.bySource.get(filename) ?? [];
}

/**
 * The frames with their source lines and original names, as Sentry's stack frame interface
 * has them (`function`, `pre_context`, `context_line`, `post_context`). Frames of libraries
 * and of files no map lists come back as they were. Never throws.
 */
export function withOriginalFacts(frames: readonly StackFrame[]): StackFrame[] {
  return frames.map((frame) => {
    try {
      const facts = originalFacts(frame, placesOf(frame.filename));
      const completed: StackFrame = { ...frame };
      if (facts.function) completed.function = facts.function;
      if (facts.context) {
        completed.pre_context = facts.context.pre;
        completed.context_line = facts.context.line;
        completed.post_context = facts.context.post;
      }
      return completed;
    } catch {
      return frame;
    }
  });
}

/** V8's frame line: `    at name (/srv/app/server/env.server.ts:10:5)`. */
const NAMED_FRAME = /^(\s*at (?:async )?)(.+?) \((\/[^()]+):(\d+):(\d+)\)$/;

/** The stack's text with our frames' original names, for the log line. Never throws. */
export function stackWithOriginalNames(stack: string): string {
  try {
    return stack
      .split('\n')
      .map((line) => {
        const match = NAMED_FRAME.exec(line);
        if (!match) return line;
        const [, head, name, filename, lineno, colno] = match as unknown as string[];
        const frame = { function: name, lineno: Number(lineno), colno: Number(colno) };
        const renamed = originalFacts(frame, placesOf(filename)).function;
        return renamed ? `${head}${renamed} (${filename}:${lineno}:${colno})` : line;
      })
      .join('\n');
  } catch {
    return stack;
  }
}

// What a chunk's map adds to one frame. Pure: the map and the chunk's text are given.

/** One chunk of the built server: its map and its generated lines (read when first needed). */
export interface ServerChunk {
  map: TraceMap;
  /** The length of the map's `mappings`: what a name search must decode. */
  mappingsLength: number;
  lines(): readonly string[];
}

/** Where a source file is in the build: the chunk whose map lists it, as the map spells it. */
export interface SourceInChunk {
  chunk: ServerChunk;
  source: string;
}

/** A Sentry stack frame's fields this reads: Node's own name and the original position. */
export interface NodeFrame {
  function?: string;
  /** 1-based, in the original source. */
  lineno?: number;
  /** 1-based, in the original source. */
  colno?: number;
}

export interface OriginalFacts {
  /** The original name, when the map gives a better one than Node's. */
  function?: string;
  context?: SourceContext;
}

/**
 * What the map adds to a frame. A source can be in several chunks (a module the pages and the
 * server functions both import): the source lines are the same in each, and the name comes
 * from the chunk in which the frame's function is found.
 */
export function originalFacts(frame: NodeFrame, places: readonly SourceInChunk[]): OriginalFacts {
  const { lineno, colno } = frame;
  if (!isPosition(lineno) || !isPosition(colno) || places.length === 0) return {};
  const facts: OriginalFacts = {};
  // The smallest chunk first: a route's or a server function's own, before the main one.
  const bySize = [...places].sort((a, b) => a.chunk.mappingsLength - b.chunk.mappingsLength);
  for (const place of bySize) {
    if (!facts.context) {
      const context = contextOf(place.chunk.map, place.source, lineno);
      if (context) facts.context = context;
    }
    if (!facts.function && typeof frame.function === 'string') {
      const name = originalFunctionName(place, lineno, colno - 1, frame.function);
      if (name) facts.function = name;
    }
  }
  return facts;
}

/** Each source's lines, indexed once per map: a map's sources do not change while it lives. */
function contextOf(map: TraceMap, source: string, line: number): SourceContext | undefined {
  const indexed = processShared(
    'server-source-lines',
    () => new WeakMap<TraceMap, Map<string, SourceLines | null>>(),
  );
  let bySource = indexed.get(map);
  if (!bySource) {
    bySource = new Map();
    indexed.set(map, bySource);
  }
  let lines = bySource.get(source);
  if (lines === undefined) {
    const content = sourceContentFor(map, source);
    lines = typeof content === 'string' ? new SourceLines(content) : null;
    bySource.set(source, lines);
  }
  return lines?.context(line);
}

/**
 * A name is searched for only in a chunk whose mappings are at most this long. Searching means
 * decoding them and indexing them by source: for nitro's main chunk (2.7 MB of mappings) that
 * held the event loop 0.1-1 s at the first failure through it. Functions there keep Node's
 * name; the route options a page's failure goes through (`loader`, `beforeLoad`) keep theirs.
 */
export const MAX_SEARCHED_MAPPINGS = 512 * 1024;

/**
 * The original name of the function a frame is in, when Node's name for it is not one of ours:
 * the frame's original position back to its generated one in this chunk, then the declaration
 * walk the browser's frames use too (`declaredFunctionName`).
 */
export function originalFunctionName(
  place: SourceInChunk,
  line: number,
  column: number,
  nodeName: string,
): string | undefined {
  const { map, mappingsLength } = place.chunk;
  if (mappingsLength > MAX_SEARCHED_MAPPINGS) return undefined;
  const generated = generatedPositionFor(map, {
    source: place.source,
    line,
    column,
    bias: GREATEST_LOWER_BOUND,
  });
  // Null in a chunk with no mapping on the frame's line: one that holds other parts of the file
  // (the split-off component of a route whose loader failed) does not hold this function.
  if (generated.line === null) return undefined;
  return declaredFunctionName(map, place.chunk.lines(), generated, nodeName);
}

function isPosition(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}
