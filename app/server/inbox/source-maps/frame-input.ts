/**
 * What of a stored stack frame can be looked up in a source map: a chunk URL or path and a
 * position. Frames come from event data anyone can post (the local DSN is public), so every
 * field is checked here and nothing later trusts the frame.
 */
import { isRecord } from '#app/server/is-record';

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
