/**
 * A server frame as Node gives it (already mapped to our TypeScript, decision 0701), completed
 * from the chunk's source map: the source lines around it from `sourcesContent`, and the
 * function's original name from `names` where the bundle renamed it. Pure: the map and the
 * chunk's text are given.
 */
import {
  GREATEST_LOWER_BOUND,
  generatedPositionFor,
  sourceContentFor,
  type TraceMap,
} from '@jridgewell/trace-mapping';
import {
  declaredFunctionName,
  type SourceContext,
  SourceLines,
} from '#app/server/inbox/source-maps/resolve-frame';
import { processShared } from '#app/start-1.120/process-shared.server';

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
 * walk the browser's frames use too (`declaredFunctionName` in app/server/inbox/source-maps/resolve-frame.ts).
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
