/**
 * Frames that come already mapped. The server turns Node's source maps on at start
 * (docs/decisions/0701), so a server event's frames name our TypeScript
 * ("/srv/app/app/routes/…/ssr-error.tsx", line 7) or a package under node_modules. Looking
 * such a frame up again in a map would be a second resolution of a position that is already
 * original: wrong at best, and a file name like "index.js" could pick some chunk's map. Only a
 * local file inside the built server's own folder (a chunk Node had no map for) still needs one.
 * Pure.
 */
import { isRecord } from '#app/server/is-record';
import type { FrameResolution, ResolvedFrame } from './resolve-frame';
import { shownSource } from './source-path';

export type FrameOrigin = 'generated' | 'original';

/** `C:\…`, `C:/…`. */
const WINDOWS_PATH = /^[a-z]:[\\/]/i;
const MAX_FILENAME = 2048;
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

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}
