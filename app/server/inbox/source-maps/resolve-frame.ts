/**
 * A stack frame through the build's source maps, one flow: the frame checked (event data anyone
 * can post) and placed (a chunk that needs its map, or a frame Node already mapped), one frame
 * mapped back to our source (position, lines around it, function name, by its declaration where
 * the chunk's text is at hand), then a whole event's frames, and runs of frames grouped for the
 * detail view.
 */
import {
  decodedMappings,
  isIgnored,
  originalPositionFor,
  sourceContentFor,
  type TraceMap,
} from '@jridgewell/trace-mapping';
import { isRecord } from '#app/server/inbox/envelope';
import type { ExceptionDetail, StackFrame } from '#app/server/inbox/inbox-event';
import { processShared } from '#app/start-1.120/process-shared.server';
import {
  type DebugImage,
  debugIdFor,
  isDebugId,
  type MapLookup,
  NO_MAP,
  type SourceMapStore,
} from './map-store.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'source-lines-by-map': WeakMap<TraceMap, Map<string, SourceLines | null>>;
  }
}

/**
 * One frame mapped back to our source, through one parsed source map: where it is in the original source, the
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
 * A minified frame's function named as the server's frames are (`declaredFunctionName`, below): by the
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
 * (React DOM's production bundle, from "react-dom/" on). Bundlers write sources relative to the map
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
/** Rollup's virtual modules start with a NUL byte (its CommonJS helpers); Vite's with "vite/". */
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
   * still needs its map; any other local file comes already mapped (see `frameOrigin`).
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

// Frames checked and placed.

/**
 * A stored stack frame as the detail view has it (see `StackFrame` in ../inbox-event.ts),
 * untrusted: what of it can be looked up in a source map is a chunk URL or path and a position.
 * Frames come from event data anyone can post (the local DSN is public), so every field is
 * checked here (`framePosition`) and nothing later trusts the frame.
 */
export interface FrameInput {
  filename?: unknown;
  function?: unknown;
  lineno?: unknown;
  colno?: unknown;
}

export interface FramePosition {
  /** The chunk's URL or path exactly as in the frame: what `debug_meta.images` names. */
  filename: string;
  /** The URL's path without query or fragment (a chunk under "/_build/assets/"). */
  path: string;
  /** 1-based, as trace-mapping's `originalPositionFor` takes it. */
  line: number;
  /** 0-based, as trace-mapping takes it. */
  column: number;
}

export type FramePositionResult =
  | { ok: true; position: FramePosition }
  | { ok: false; reason: string };

/** Generated chunks are JavaScript; anything else (an HTML page's inline script, CSS) has no map. */
const CHUNK_SUFFIX = /\.(?:m|c)?js$/;
/**
 * `vinxi dev` serves our modules, transformed, at their source's name
 * ("http://127.0.0.1:3000/_build/app/routes/index.tsx?tsr-split=component"): over HTTP only, a
 * local TypeScript path is a server frame run from source, already original.
 */
const DEV_MODULE = /^https?:\/\/[^/]*\/[^?#]*\.(?:tsx?|jsx)(?:[?#]|$)/i;
/** Schemes our chunks are served or run from; extensions, `node:` and `<anonymous>` are not ours. */
const OUR_SCHEME = /^(?:https?:\/\/[^/]*|file:\/\/)?(\/[^?#]*)/i;
const MAX_FILENAME = 2048;

export function framePosition(frame: unknown): FramePositionResult {
  if (!isRecord(frame)) return fail('no file name');
  const { filename, lineno, colno } = frame as FrameInput;
  if (typeof filename !== 'string' || filename === '') return fail('no file name');
  if (filename.length > MAX_FILENAME) return fail('not a frame of ours');
  const path = OUR_SCHEME.exec(filename)?.[1];
  if (!path || !(CHUNK_SUFFIX.test(path) || DEV_MODULE.test(filename)))
    return fail('not a frame of ours');
  // Sentry's lineno and colno are the engine's, both 1-based; a missing column is the line's
  // start. Symbolicator looks up (lineno - 1, colno - 1) in its 0-based terms:
  // https://github.com/getsentry/symbolicator/blob/master/crates/symbolicator-js/src/symbolication.rs
  if (!isPositiveInteger(lineno)) return fail('no usable position');
  if (colno !== undefined && !isPositiveInteger(colno)) return fail('no usable position');
  return { ok: true, position: { filename, path, line: lineno, column: (colno ?? 1) - 1 } };
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

function fail(reason: string): FramePositionResult {
  return { ok: false, reason };
}

/**
 * Frames that come already mapped. The server turns Node's source maps on at start
 * (docs/decisions/0701), so a server event's frames name our TypeScript
 * ("/srv/app/app/routes/…/ssr-error.tsx", line 7) or a package under node_modules. Looking
 * such a frame up again in a map would be a second resolution of a position that is already
 * original: wrong at best, and a bare file name that many packages share could pick some chunk's map. Only a
 * local file inside the built server's own folder (a chunk Node had no map for) still needs one.
 * Pure.
 */
export type FrameOrigin = 'generated' | 'original';

/** `C:\…`, `C:/…`. */
const WINDOWS_PATH = /^[a-z]:[\\/]/i;

/**
 * 'original' for a local file path outside `serverOutputDir` (absolute, or a file: URL) and
 * for Node's own modules (`node:internal/…`); 'generated' for everything else: browser chunk
 * URLs, chunks of the built server, and anything odd, which the resolver then explains.
 */
export function frameOrigin(filename: unknown, serverOutputDir?: string): FrameOrigin {
  if (typeof filename !== 'string' || filename.length > MAX_FILENAME) return 'generated';
  if (filename.startsWith('node:')) return 'original';
  const path = localPath(filename);
  if (path === undefined) return 'generated';
  if (!serverOutputDir) return 'original';
  const dir = slashes(serverOutputDir).replace(/\/?$/, '/');
  const inside = path.startsWith(dir) && !path.startsWith(`${dir}node_modules/`);
  return inside ? 'generated' : 'original';
}

/**
 * An already-original frame as the view shows a resolved one: its file project-relative (or
 * from the package name on), its own line, column and function. No source context: the file
 * is named by event data, which must never choose a file to read.
 */
export function originalFrame(frame: unknown, options: { projectRoot?: string }): FrameResolution {
  if (!isRecord(frame) || typeof frame.filename !== 'string')
    return { resolved: false, reason: 'no file name' };
  const { filename, lineno, colno } = frame;
  if (!isPositiveInteger(lineno) || !isPositiveInteger(colno))
    return { resolved: false, reason: 'no usable position' };
  const shown = filename.startsWith('node:')
    ? { path: filename.slice(0, MAX_NAME), library: true }
    : shownSource(localPath(filename) ?? filename, { projectRoot: options.projectRoot });
  const result: ResolvedFrame = {
    resolved: true,
    path: shown.path,
    line: lineno,
    column: colno,
    context: null,
    library: shown.library,
  };
  if (typeof frame.function === 'string' && frame.function !== '' && frame.function !== '?')
    result.functionName = frame.function.slice(0, MAX_NAME);
  return result;
}

/** The path of a local file name, "/" separated; undefined when it is not one. */
function localPath(filename: string): string | undefined {
  const path = filename.startsWith('file://') ? decodedPath(filename.slice(7)) : filename;
  if (path === undefined) return undefined;
  if (path.startsWith('/') && !path.startsWith('//')) return path;
  if (WINDOWS_PATH.test(path)) return slashes(path);
  return undefined;
}

function decodedPath(path: string): string | undefined {
  try {
    // file:///C:/x has its drive after the third slash.
    const decoded = decodeURIComponent(path);
    return /^\/[a-z]:\//i.test(decoded) ? decoded.slice(1) : decoded;
  } catch {
    return undefined;
  }
}

function slashes(path: string): string {
  return path.replace(/\\/g, '/');
}

/**
 * Frames in runs for the detail view: each of our frames on its own, consecutive library
 * frames together so the view can show "3 library frames" folded. Pure.
 */
export type FrameGroup =
  | { kind: 'frame'; index: number }
  /** `indices` into the exception's frames, in order; never empty. */
  | { kind: 'library'; indices: number[] };

/** An unresolved frame is a library's when its own file is under node_modules (server stacks). */
const LIBRARY_FILE = /(?:^|[/\\])node_modules[/\\]/;

export function isLibraryFrame(
  frame: StackFrame,
  resolution: FrameResolution | undefined,
): boolean {
  if (resolution?.resolved) return resolution.library;
  const filename: unknown = isRecord(frame) ? frame.filename : undefined;
  return typeof filename === 'string' && LIBRARY_FILE.test(filename);
}

export function groupFrames(
  frames: readonly StackFrame[],
  resolutions: readonly FrameResolution[],
): FrameGroup[] {
  const groups: FrameGroup[] = [];
  frames.forEach((frame, index) => {
    if (!isLibraryFrame(frame, resolutions[index])) {
      groups.push({ kind: 'frame', index });
      return;
    }
    const last = groups[groups.length - 1];
    if (last?.kind === 'library') last.indices.push(index);
    else groups.push({ kind: 'library', indices: [index] });
  });
  return groups;
}

// Function names by declaration, as rust-sourcemap's `SourceView::get_original_function_name`
// reads them (what Sentry used before scope names). Shared by the server's frames
// (app/server/failures/server-frames.server.ts) and the browser's (`declaredNameOf` above), so both
// name a function alike. Pure: the map and the chunk's lines are given.

/** How far back the search goes, in mappings: rust-sourcemap's limit is 128 tokens. */
export const MAX_MAPPINGS_BACK = 256;
const IDENTIFIER = /^[A-Za-z_$][\w$]*/;

/** A position in the generated chunk: `line` 1-based, `column` 0-based, as the map counts. */
export interface GeneratedPosition {
  line: number;
  column: number;
}

/**
 * From the generated position, walk back through the mappings (at most MAX_MAPPINGS_BACK) to
 * the token that spells the function's generated name where it is declared, and take the
 * original name the map gives that token. Our bundles map `function y() {` at `y`, not at
 * `function`, so a declaration is recognised by the text around the token instead.
 *
 * - A minified name (`y`): the nearest `function y`, `y(`, `y =` or `y:` before the position.
 * - A name the runtime gave (Start calls a server function's handler as `Object.serverFn`):
 *   the nearest binding before the position (`l = createServerFn(…).handler(…)`), whose
 *   original name is the server function's (`callFailingExample`). A local binding in that
 *   function, written before the throw, would be taken instead: this is a heuristic, as
 *   rust-sourcemap's is.
 * - The engine's name when the map lists it (`loader`): undefined, that name stands.
 */
export function declaredFunctionName(
  map: TraceMap,
  lines: readonly string[],
  generated: GeneratedPosition,
  engineName: string,
): string | undefined {
  const own = coreName(engineName);
  if (!IDENTIFIER.test(own) || map.names.includes(own)) return undefined;
  const mappings = decodedMappings(map);
  const minified = own.length <= 2;
  let seen = 0;
  for (let row = generated.line - 1; row >= 0 && seen < MAX_MAPPINGS_BACK; row -= 1) {
    const segments = mappings[row] ?? [];
    const lineText = lines[row] ?? '';
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
