/**
 * One frame mapped back to our source: the original position, a path a reader recognises, and
 * the lines around it.
 */
import {
  decodedMappings,
  isIgnored,
  originalPositionFor,
  sourceContentFor,
  type TraceMap,
} from '@jridgewell/trace-mapping';
import { processShared } from '#app/server/process-shared.server';
import { type FrameInput, framePosition } from './frames';

/**
 * One stack frame through one parsed source map: where it is in the original source, the
 * lines around it, and a function name. Pure; never throws (a map's mappings are decoded
 * lazily, on the first lookup, so a garbage map fails here, not when it is parsed).
 */
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

/**
 * The lines of original source around a resolved line, as Sentry shows them (its
 * pre_context/context_line/post_context). A source is indexed once by where its lines start,
 * so a frame deep in a 500 KB library source costs a lookup, not a scan from the top.
 */

export interface SourceContext {
  pre: string[];
  line: string;
  post: string[];
}

/** Five lines in all: two before, the line, two after. */
export const CONTEXT_LINES_AROUND = 2;
/** A minified library's source is one huge line: show its start, not all of it. */
export const MAX_CONTEXT_LINE = 240;

export class SourceLines {
  /** Offset of each line's first character; `starts[0]` is 0. */
  readonly #starts: Uint32Array;

  constructor(readonly text: string) {
    const starts = [0];
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1))
      starts.push(at + 1);
    this.#starts = Uint32Array.from(starts);
  }

  get count(): number {
    return this.#starts.length;
  }

  /** `line` is 1-based. Undefined when the source has no such line. */
  context(line: number, around = CONTEXT_LINES_AROUND): SourceContext | undefined {
    if (!Number.isSafeInteger(line) || line < 1 || line > this.count) return undefined;
    const range = (from: number, to: number) => {
      const lines: string[] = [];
      for (let n = Math.max(1, from); n <= Math.min(this.count, to); n += 1)
        lines.push(this.#line(n));
      return lines;
    };
    return {
      pre: range(line - around, line - 1),
      line: this.#line(line),
      post: range(line + 1, line + around),
    };
  }

  #line(n: number): string {
    const start = this.#starts[n - 1] ?? 0;
    const end = n < this.count ? (this.#starts[n] ?? this.text.length) - 1 : this.text.length;
    const text = this.text.slice(start, Math.min(end, start + MAX_CONTEXT_LINE + 1));
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    return line.length > MAX_CONTEXT_LINE ? `${line.slice(0, MAX_CONTEXT_LINE)}…` : line;
  }
}

/**
 * How an original source's path is shown: project-relative for our own files
 * ("app/routes/sentry-example-page/index.tsx"), from the package name on for libraries
 * ("react-dom/cjs/react-dom-client.production.js"). Bundlers write sources relative to the map
 * ("../../app/…"), with a scheme ("webpack://app/./app/…", "vite:"), or absolute from the build
 * machine ("/home/ci/project/app/…"); the reader wants the same short path for all of them.
 */

export interface ShownSource {
  path: string;
  /** Under node_modules, a bundler's virtual module, or on the map's ignore list. */
  library: boolean;
}

/** Relay's limit for frame paths: a longer one is cut, not shown whole. */
const MAX_PATH = 256;
const SCHEME = /^[a-z][a-z0-9+.-]*:(?:\/\/[^/]*)?/i;
const NODE_MODULES = '/node_modules/';
/** Rollup's virtual modules start with a NUL byte ("\0commonjsHelpers.js"); Vite's with "vite/". */
const VIRTUAL = /^(?:\0|vite\/|__vite|virtual:)/;
/**
 * Bundlers keep a module id's query in `sources`: the router's code splitting maps each route's
 * component to "…/index.tsx?tsr-split=component", Vite's asset imports to "…?url". The file is
 * the same one; the query is not part of its path.
 */
const QUERY = /[?#].*$/;

/**
 * `projectRoot` is the absolute directory the app was built in, when known: an absolute source
 * under it is shown relative to it. Without it an absolute path is shown from its first
 * `app/` folder, this project's only source folder.
 */
export function shownSource(
  source: string,
  options: { projectRoot?: string; ignored?: boolean } = {},
): ShownSource {
  if (VIRTUAL.test(source)) return shown(source.replace(/^\0/, ''), true);
  let path = source.replace(/\\/g, '/');
  const root = options.projectRoot?.replace(/\\/g, '/').replace(/\/?$/, '/');
  if (root && path.startsWith(root)) path = path.slice(root.length);
  path = `/${path.replace(SCHEME, '').replace(QUERY, '')}`;
  const modules = path.lastIndexOf(NODE_MODULES);
  if (modules !== -1) return shown(path.slice(modules + NODE_MODULES.length), true);
  path = normalised(path);
  const appFolder = path.indexOf('/app/');
  if (appFolder > 0) path = path.slice(appFolder);
  return shown(path.replace(/^\/+/, ''), options.ignored === true);
}

/** "." and ".." resolved without ever climbing above the start: what is left is shown. */
function normalised(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

function shown(path: string, library: boolean): ShownSource {
  return { path: path.length > MAX_PATH ? `${path.slice(0, MAX_PATH)}…` : path, library };
}
