/**
 * Frame resolution: one frame mapped back to our source, then a whole event's frames.
 */
import {
  decodedMappings,
  isIgnored,
  originalPositionFor,
  sourceContentFor,
  type TraceMap,
} from '@jridgewell/trace-mapping';
import type { ExceptionDetail, StackFrame } from '#app/server/inbox/inbox-event';
import { isRecord } from '#app/server/inbox/protocol-values';
import { processShared } from '#app/start-1.120/process-shared.server';
import { declaredFunctionName, type GeneratedPosition } from './declared-name';
import {
  type FrameGroup,
  type FrameInput,
  frameOrigin,
  framePosition,
  groupFrames,
  originalFrame,
} from './frames';
import {
  type DebugImage,
  debugIdFor,
  isDebugId,
  type MapLookup,
  NO_MAP,
  type SourceMapStore,
} from './map-store';

/**
 * One frame mapped back to our source: the original position, a path a reader recognises, and
 * the lines around it.
 */
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
  /** The chunk's own lines, when the store has them: the function is named by its declaration. */
  chunkLines?: readonly string[];
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
    const fn =
      declaredNameOf(map, frame.function, { line, column }, options.chunkLines) ??
      functionNameOf(frame.function, options.callerName, map.names);
    if (fn) result.functionName = fn;
    if (typeof original.name === 'string' && original.name)
      result.nameAtPosition = original.name.slice(0, MAX_NAME);
    return result;
  } catch {
    return unresolved('unreadable source map');
  }
}

/**
 * A minified frame's function named as the server's frames are (declared-name.ts): by the
 * original name of the token that declares it, walking back from the frame. React calls every
 * component as `Component(props, …)`, so caller naming would call `RenderBomb` "Component".
 * Only for a minifier's name: an engine's readable name (`onClick`) stands, as in
 * `functionNameOf`.
 */
function declaredNameOf(
  map: TraceMap,
  own: unknown,
  at: GeneratedPosition,
  chunkLines: readonly string[] | undefined,
): string | undefined {
  if (!chunkLines || typeof own !== 'string' || own.length > MAX_NAME) return undefined;
  const core = /^(.*?)(?: \[as [^\]]+\])?$/.exec(own)?.[1] ?? own;
  if (!looksMinified(core, map.names)) return undefined;
  return declaredFunctionName(map, chunkLines, at, own)?.slice(0, MAX_NAME);
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

/**
 * Every frame of an event's exceptions through the source maps: what the detail view shows
 * (each frame resolved or not, runs of library frames grouped) and the one line the list view
 * shows ("app/routes/sentry-example-page/index.tsx:24 in onClick"). Each map an event needs is
 * asked for once; a failure of any kind becomes that frame's reason, never an exception.
 */
export interface ResolvedException {
  type: string;
  value: string;
  /** Most recent call first, as in `ExceptionDetail`; `resolutions[i]` is `frames[i]`'s. */
  frames: StackFrame[];
  resolutions: FrameResolution[];
  /** The same frames, runs of library frames together: the view collapses those. */
  groups: FrameGroup[];
}

export interface TopFrame {
  path: string;
  line: number;
  functionName?: string;
  /** "app/routes/sentry-example-page/index.tsx:24 in onClick". */
  label: string;
}

export interface ResolvedEvent {
  exceptions: ResolvedException[];
  /** The most recent resolved frame of our own code in the thrown exception, if any. */
  topFrame?: TopFrame;
}

export interface ResolveEventInput {
  /** As `eventDetailOf` gives them: the thrown exception first, each most recent call first. */
  exceptions: readonly ExceptionDetail[];
  /** `debugImagesOf(rawEvent)`. */
  debugImages: readonly DebugImage[];
}

export interface ResolveEventOptions {
  /** Absolute directory the app was built in: absolute sources under it are shown relative. */
  projectRoot?: string;
  /**
   * The built server's folder (`.output/server`): a local file inside it is a chunk that
   * still needs its map; any other local file comes already mapped (see frame-origin.ts).
   */
  serverOutputDir?: string;
}

const AS_GIVEN: MapLookup = { found: false, reason: 'already original' };

export async function resolveEventFrames(
  input: ResolveEventInput,
  store: SourceMapStore,
  options: ResolveEventOptions = {},
): Promise<ResolvedEvent> {
  const maps = new Map<string, Promise<MapLookup>>();
  const exceptions: ResolvedException[] = [];
  for (const exception of input.exceptions) {
    const frames: StackFrame[] = Array.isArray(exception.frames) ? exception.frames : [];
    const origins = frames.map((frame) =>
      frameOrigin(isRecord(frame) ? frame.filename : undefined, options.serverOutputDir),
    );
    const lookups = await Promise.all(
      frames.map((frame, i) =>
        origins[i] === 'original' ? AS_GIVEN : mapFor(frame, input.debugImages, store, maps),
      ),
    );
    // Oldest frame first, so each frame knows the name at its caller's call site.
    const resolutions: FrameResolution[] = new Array(frames.length);
    let callerName: string | undefined;
    for (let i = frames.length - 1; i >= 0; i -= 1) {
      const frame = frames[i] as StackFrame;
      const lookup = lookups[i] as MapLookup;
      const resolution: FrameResolution =
        origins[i] === 'original'
          ? originalFrame(frame, { projectRoot: options.projectRoot })
          : lookup.found
            ? resolveFrame(lookup.map, frame as FrameInput, {
                projectRoot: options.projectRoot,
                callerName,
                ...(lookup.chunkLines ? { chunkLines: lookup.chunkLines } : {}),
              })
            : ({ resolved: false, reason: lookup.reason } as const);
      callerName = resolution.resolved ? resolution.nameAtPosition : undefined;
      resolutions[i] = resolution;
    }
    exceptions.push({
      type: exception.type,
      value: exception.value,
      frames,
      resolutions,
      groups: groupFrames(frames, resolutions),
    });
  }
  const result: ResolvedEvent = { exceptions };
  const top = topFrameOf(exceptions[0]?.resolutions ?? []);
  if (top) result.topFrame = top;
  return result;
}

/**
 * The map for a frame: by the debug id the event gives for its file, else by the chunk's
 * name. A debug id with no map while a map for the same chunk name exists means the map on
 * disk is from another build, and is not used: its positions would be wrong.
 */
async function mapFor(
  frame: StackFrame,
  images: readonly DebugImage[],
  store: SourceMapStore,
  maps: Map<string, Promise<MapLookup>>,
): Promise<MapLookup> {
  const checked = framePosition(frame);
  if (!checked.ok) return { found: false, reason: checked.reason };
  const { filename, path } = checked.position;
  // Checked again: images normally come from debugImagesOf, but a bad id must only fall back.
  const named = debugIdFor(filename, Array.isArray(images) ? images : []);
  const debugId = isDebugId(named) ? named.toLowerCase() : undefined;
  const key = debugId ? `id:${debugId}` : `url:${filename}`;
  let lookup = maps.get(key);
  if (!lookup) {
    lookup = safely(async () => {
      if (!debugId) return store.byChunkPath(path, filename);
      const byId = await store.byDebugId(debugId);
      if (byId.found || byId.reason !== NO_MAP) return byId;
      const byName = await store.byChunkPath(path, filename);
      return byName.found ? { found: false, reason: 'map for another build' } : byId;
    });
    maps.set(key, lookup);
  }
  return lookup;
}

async function safely(lookup: () => Promise<MapLookup>): Promise<MapLookup> {
  try {
    return await lookup();
  } catch {
    return { found: false, reason: 'source map could not be read' };
  }
}

export function topFrameOf(resolutions: readonly FrameResolution[]): TopFrame | undefined {
  const own = resolutions.find(
    (resolution): resolution is ResolvedFrame => resolution.resolved && !resolution.library,
  );
  if (!own) return undefined;
  const where = `${own.path}:${own.line}`;
  const top: TopFrame = { path: own.path, line: own.line, label: where };
  if (own.functionName) {
    top.functionName = own.functionName;
    top.label = `${where} in ${own.functionName}`;
  }
  return top;
}

/**
 * How many frames nearest the throw the list looks through for the top frame of our code: the
 * list resolves one line per event for up to a page of events, so it stops early. A frame of
 * ours deeper than this under library frames is left to the detail view.
 */
export const TOP_FRAME_SEARCH = 16;

/** The list's one line: `topFrame` of the thrown exception's first TOP_FRAME_SEARCH frames. */
export async function resolveTopFrame(
  input: ResolveEventInput,
  store: SourceMapStore,
  options: ResolveEventOptions = {},
): Promise<TopFrame | undefined> {
  const thrown = input.exceptions[0];
  if (!thrown || !Array.isArray(thrown.frames)) return undefined;
  // One frame more: the deepest one searched is named at its caller's call site.
  const frames = thrown.frames.slice(0, TOP_FRAME_SEARCH + 1);
  const resolved = await resolveEventFrames(
    { exceptions: [{ ...thrown, frames }], debugImages: input.debugImages },
    store,
    options,
  );
  return topFrameOf(resolved.exceptions[0]?.resolutions.slice(0, TOP_FRAME_SEARCH) ?? []);
}
