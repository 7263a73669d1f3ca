/**
 * A server frame as Node gives it (already mapped to our TypeScript, decision 0701), completed
 * from the chunk's source map: the source lines around it from `sourcesContent`, and the
 * function's original name from `names` where the bundle renamed it. Pure: the map and the
 * chunk's text are given.
 */
import {
  decodedMappings,
  GREATEST_LOWER_BOUND,
  generatedPositionFor,
  sourceContentFor,
  type TraceMap,
} from '@jridgewell/trace-mapping';
import { type SourceContext, SourceLines } from '#app/server/inbox/source-maps/resolve-frame';
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
/** How far back the search goes, in mappings: rust-sourcemap's limit is 128 tokens. */
const MAX_MAPPINGS_BACK = 256;
const IDENTIFIER = /^[A-Za-z_$][\w$]*/;

/**
 * The original name of the function a frame is in, when Node's name for it is not one of ours.
 * Follows rust-sourcemap's `SourceView::get_original_function_name` (what Sentry used before
 * scope names): from the frame's generated position, walk back through the mappings to the
 * token that spells the function's generated name where it is declared, and take the original
 * name the map gives that token. Our bundles map `function y() {` at `y`, not at `function`,
 * so a declaration is recognised by the text around the token instead.
 *
 * - A minified name (`y`): the nearest `function y`, `y(`, `y =` or `y:` before the frame.
 * - A name the runtime gave (Start calls a server function's handler as `Object.serverFn`):
 *   the nearest binding before the frame (`l = createServerFn(…).handler(…)`), whose original
 *   name is the server function's (`callFailingExample`). A local binding in that function,
 *   written before the throw, would be taken instead: this is a heuristic, as rust-sourcemap's is.
 * - Node's name when the map lists it (`loader`): undefined, Node's name stands.
 */
export function originalFunctionName(
  place: SourceInChunk,
  line: number,
  column: number,
  nodeName: string,
): string | undefined {
  const own = coreName(nodeName);
  const { map, mappingsLength } = place.chunk;
  if (mappingsLength > MAX_SEARCHED_MAPPINGS) return undefined;
  if (!IDENTIFIER.test(own) || map.names.includes(own)) return undefined;
  const generated = generatedPositionFor(map, {
    source: place.source,
    line,
    column,
    bias: GREATEST_LOWER_BOUND,
  });
  // Null in a chunk with no mapping on the frame's line: one that holds other parts of the file
  // (the split-off component of a route whose loader failed) does not hold this function.
  if (generated.line === null) return undefined;
  const mappings = decodedMappings(map);
  const text = place.chunk.lines();
  const minified = own.length <= 2;
  let seen = 0;
  for (let row = generated.line - 1; row >= 0 && seen < MAX_MAPPINGS_BACK; row -= 1) {
    const segments = mappings[row] ?? [];
    const lineText = text[row] ?? '';
    for (let i = segments.length - 1; i >= 0 && seen < MAX_MAPPINGS_BACK; i -= 1) {
      const segment = segments[i] as readonly number[];
      const at = segment[0] as number;
      if (row === generated.line - 1 && at > generated.column) continue;
      seen += 1;
      if (segment.length !== 5) continue;
      const token = IDENTIFIER.exec(lineText.slice(at))?.[0];
      if (!token) continue;
      const before = lineText.slice(0, at);
      const after = lineText.slice(at + token.length);
      const found = minified
        ? token === own && declares(before, after, true)
        : declares(before, after, false);
      if (found) return map.names[segment[4] as number];
    }
  }
  return undefined;
}

/** V8's "Object.serverFn" or "Module.y [as run]": the function's own name, "serverFn", "y". */
function coreName(name: string): string {
  const withoutAlias = name.replace(/ \[as [^\]]+\]$/, '');
  return withoutAlias.slice(withoutAlias.lastIndexOf('.') + 1);
}

/**
 * Whether the token between `before` and `after` is being declared: `function y`, `class y`,
 * `y = …` (not `==`, not `=>`), and with `asCallee` also `y(` and `y:` (a method, a property).
 */
function declares(before: string, after: string, asCallee: boolean): boolean {
  if (/(?:function\*?|class)\s+$/.test(before)) return true;
  if (/^\s*=(?![=>])/.test(after) && !/\.\s*$/.test(before)) return true;
  return asCallee && /^\s*[(:]/.test(after) && !/\.\s*$/.test(before);
}

function isPosition(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}
