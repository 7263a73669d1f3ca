/**
 * One stack frame through one parsed source map: where it is in the original source, the
 * lines around it, and a function name. Pure; never throws (a map's mappings are decoded
 * lazily, on the first lookup, so a garbage map fails here, not when it is parsed).
 */
import {
  decodedMappings,
  isIgnored,
  originalPositionFor,
  sourceContentFor,
  type TraceMap,
} from '@jridgewell/trace-mapping';
import { processShared } from '#app/server/process-shared.server';
import { type FrameInput, framePosition } from './frame-input';
import { type SourceContext, SourceLines } from './source-context';
import { shownSource } from './source-path';

export interface ResolvedFrame {
  resolved: true;
  /** Project-relative ("app/routes/…"), or from the package name on for a library. */
  path: string;
  /** 1-based. */
  line: number;
  /** 1-based, as Sentry shows columns. */
  column: number;
  functionName?: string;
  /** Null when the map carries no source text for this file. */
  context: SourceContext | null;
  library: boolean;
  /**
   * The original name the map gives at this frame's position. At a call site that is the
   * name of the function being called, so it names the NEXT frame in (see `functionNameOf`).
   */
  nameAtPosition?: string;
}

export interface UnresolvedFrame {
  resolved: false;
  /** Short, for a reader: "no map for this file", "position out of range", … */
  reason: string;
}

export type FrameResolution = ResolvedFrame | UnresolvedFrame;

export interface ResolveOptions {
  /** Absolute directory the app was built in: absolute sources under it are shown relative. */
  projectRoot?: string;
  /** `nameAtPosition` of the frame that called this one (the next one out), when resolved. */
  callerName?: string;
}

const MAX_NAME = 256;

/**
 * Each source's line index, kept as long as its map is: the store's LRU drops the map, and
 * with it these. Memoisation only; results are the same without it.
 */
const linesByMap = processShared(
  'source-lines-by-map',
  () => new WeakMap<TraceMap, Map<string, SourceLines | null>>(),
);

function sourceLinesOf(map: TraceMap, source: string): SourceLines | null {
  let bySource = linesByMap.get(map);
  if (!bySource) {
    bySource = new Map();
    linesByMap.set(map, bySource);
  }
  let lines = bySource.get(source);
  if (lines === undefined) {
    const content = sourceContentFor(map, source);
    lines = typeof content === 'string' ? new SourceLines(content) : null;
    bySource.set(source, lines);
  }
  return lines;
}

export function resolveFrame(
  map: TraceMap,
  frame: FrameInput,
  options: ResolveOptions = {},
): FrameResolution {
  const checked = framePosition(frame);
  if (!checked.ok) return unresolved(checked.reason);
  const { line, column } = checked.position;
  try {
    if (line > decodedMappings(map).length) return unresolved('position out of range');
    const original = originalPositionFor(map, { line, column });
    if (original.source === null) return unresolved('position out of range');
    // Garbage mappings decode to numbers all the same: a source index past `sources`, a
    // negative line. Such a map says nothing we can show.
    if (
      typeof original.source !== 'string' ||
      !isPosition(original.line, 1) ||
      !isPosition(original.column, 0)
    ) {
      return unresolved('unreadable source map');
    }
    const ignored = isIgnored(map, original.source);
    const shown = shownSource(original.source, { projectRoot: options.projectRoot, ignored });
    const lines = sourceLinesOf(map, original.source);
    const result: ResolvedFrame = {
      resolved: true,
      path: shown.path,
      line: original.line,
      column: original.column + 1,
      context: lines?.context(original.line) ?? null,
      library: shown.library,
    };
    const fn = functionNameOf(frame.function, options.callerName, map.names);
    if (fn) result.functionName = fn;
    if (typeof original.name === 'string' && original.name)
      result.nameAtPosition = original.name.slice(0, MAX_NAME);
    return result;
  } catch {
    return unresolved('unreadable source map');
  }
}

/**
 * Standard source maps have no scopes, so "the map's name at the frame's position" is not the
 * frame's function: at a call site it is the callee (the next frame in), and at a `throw new
 * Error()` there is usually none. Sentry names a frame by its scope, else by the name at its
 * caller's call site ("caller naming":
 * https://blog.sentry.io/2022/11/30/how-we-made-javascript-stack-traces-awesome/), else by the
 * minified name. Without scopes we keep the engine's own name when it is not a minifier's (V8
 * names `{ onClick: () => … }` "onClick" from the property, which no minifier renames), else
 * take the caller's, else V8's alias ("Module.i [as run]" was called as `run`).
 */
export function functionNameOf(
  own: unknown,
  callerName: string | undefined,
  names: readonly string[],
): string | undefined {
  const ownName =
    typeof own === 'string' && own !== '' && own !== '?' ? own.slice(0, MAX_NAME) : undefined;
  if (!ownName) return callerName;
  const [, core = ownName, alias] = /^(.*?)(?: \[as ([^\]]+)\])?$/.exec(ownName) ?? [];
  if (!looksMinified(core, names)) return ownName;
  return callerName || alias || ownName;
}

/** Minifiers' names are one or two characters; an original name the map lists is not one. */
function looksMinified(name: string, names: readonly string[]): boolean {
  const last = name.slice(name.lastIndexOf('.') + 1);
  return last.length <= 2 && !names.includes(last);
}

function isPosition(value: number, least: number): boolean {
  return Number.isSafeInteger(value) && value >= least;
}

function unresolved(reason: string): UnresolvedFrame {
  return { resolved: false, reason };
}
