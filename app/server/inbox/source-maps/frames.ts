/**
 * A stack frame as the resolver sees it: its position and file checked, which build output it
 * came from, and runs of frames grouped for the detail view.
 */

import type { StackFrame } from '#app/server/inbox/inbox-event';
import { isRecord } from '#app/server/inbox/protocol-values';
import { type FrameResolution, type ResolvedFrame, shownSource } from './resolve-frame';

/**
 * What of a stored stack frame can be looked up in a source map: a chunk URL or path and a
 * position. Frames come from event data anyone can post (the local DSN is public), so every
 * field is checked here and nothing later trusts the frame.
 */
/** The frame as the detail view has it (see `StackFrame` in ../inbox-event.ts), untrusted. */
export interface FrameInput {
  filename?: unknown;
  function?: unknown;
  lineno?: unknown;
  colno?: unknown;
}

export interface FramePosition {
  /** The chunk's URL or path exactly as in the frame: what `debug_meta.images` names. */
  filename: string;
  /** The URL's path without query or fragment ("/_build/assets/index-abc.js"). */
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
 * original: wrong at best, and a file name like "index.js" could pick some chunk's map. Only a
 * local file inside the built server's own folder (a chunk Node had no map for) still needs one.
 * Pure.
 */
export type FrameOrigin = 'generated' | 'original';

/** `C:\…`, `C:/…`. */
const WINDOWS_PATH = /^[a-z]:[\\/]/i;
const MAX_NAME = 256;

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
