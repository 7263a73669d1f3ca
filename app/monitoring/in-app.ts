/**
 * Which browser frames are ours, and the size limits an event has wherever it is made or kept:
 * the in-app rule by chunk name, the one 50-frame limit and the one message length, shared by
 * the recorder, the SDK and the local inbox. Tiny and browser-safe: the recorder's inline script
 * bundles it.
 *
 * The in-app rule: the browser SDK calls every frame in-app, and Sentry
 * groups an error by its in-app frames, so React's or the router's frames would split or merge
 * issues that our code decides. The build puts all library code into chunks named for it
 * (build/client-chunks.ts), so a frame's chunk name says whose code it is.
 */
import type { StackParser } from '@sentry/core';

/**
 * Chunks holding only library code: the shared chunks build/client-chunks.ts names (react,
 * @sentry before and after hydration, @tanstack, other packages), and vite's empty stand-in for
 * Node built-ins. Every other chunk (routes, `app`, the `client` entry, `sdk-loader`) holds
 * our code.
 */
export const LIBRARY_CHUNKS: readonly string[] = [
  'vendor-react',
  'vendor-sentry',
  'sentry-tracing',
  'router',
  'vendor',
  '__vite-browser-external',
];

/** Rollup's `[name]-[hash].js`: the hash is 8 characters of base64url. */
const CHUNK_FILE = /^(.+)-[\w-]{8}\.js$/;

/**
 * In-app: a script the app serves under `/_build/` that is not a library chunk. Not in-app:
 * library chunks, dependencies the dev server serves from node_modules or `/@vite/`, and
 * whatever is not one of our scripts (the page's inline scripts, other origins, `<anonymous>`).
 */
export function isInAppFrame(filename: string | undefined): boolean {
  if (!filename) return false;
  const path = pathOf(filename);
  if (!path.startsWith('/_build/')) return false;
  if (path.includes('/node_modules/') || path.includes('/@vite/')) return false;
  const chunk = CHUNK_FILE.exec(path.slice(path.lastIndexOf('/') + 1))?.[1];
  return chunk === undefined || !LIBRARY_CHUNKS.includes(chunk);
}

/** A stack parser whose frames say in_app by `isInAppFrame` instead of the SDK's blanket true. */
export function markInAppFrames(parser: StackParser): StackParser {
  return (stack, skipFirstLines, framesToPop) =>
    parser(stack, skipFirstLines, framesToPop).map((frame) => ({
      ...frame,
      in_app: isInAppFrame(frame.filename),
    }));
}

function pathOf(filename: string): string {
  try {
    return new URL(filename).pathname;
  } catch {
    return filename;
  }
}

/**
 * Stack traces keep at most this many frames: the ones that locate a failure, and a bound on
 * what a deep recursion costs to send and store (the SDK's own stack parser stops at 50 too).
 */
export const MAX_STACK_FRAMES = 50;

/**
 * Messages keep at most this many characters: Relay's limit for free text (`MaxChars`), so the
 * recorder stores no more than Sentry would keep, and the local inbox cuts where Sentry does.
 */
export const MAX_MESSAGE_CHARS = 8_192;

/**
 * A stack parser that keeps the `limit` frames nearest to where the error was thrown. Sentry
 * orders frames oldest first (the crash site is the last frame), so those are the last ones.
 * The SDK's own parser stops at 50 today; this states the limit here instead of relying on it.
 */
export function limitStackFrames(parser: StackParser, limit = MAX_STACK_FRAMES): StackParser {
  return (stack, skipFirstLines, framesToPop) =>
    parser(stack, skipFirstLines, framesToPop).slice(-limit);
}
