/**
 * A server failure as it may leave the server: its digest (the one id the log line, the Sentry
 * event and the page share) and the public error that carries nothing else.
 */

import { createHash } from 'node:crypto';
import { SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';

/**
 * The only form in which a server-side failure leaves the server: the generic message and the
 * digest. Start's serializer copies an error's own fields, message and (in development) stack
 * into the HTML and server-function payloads, so this error has nothing else to copy.
 */
export class PublicServerError extends Error {
  readonly digest: string;

  constructor(digest: string) {
    super(SERVER_FAILURE_MESSAGE);
    this.name = 'ServerError';
    this.digest = digest;
    // The development serializer sends the stack: make it say nothing about the server.
    this.stack = `${this.name}: ${this.message} (digest ${digest})`;
  }
}

export function isPublicServerError(error: unknown): error is PublicServerError {
  return error instanceof PublicServerError;
}

/** How many stack frames take part: enough to tell call sites apart, few enough to group. */
const TOP_FRAMES = 5;

/**
 * A short, deterministic fingerprint of an error: the same error thrown from the same place
 * gets the same digest (so repeats group), and the digest is a truncated hash, so nothing of
 * the message can be read back from it. Pure and total: never throws.
 */
export function computeDigest(error: unknown): string {
  return createHash('sha256').update(fingerprintOf(error)).digest('hex').slice(0, 10);
}

/**
 * The text that is hashed: name, message and the top stack frames (not the message line),
 * counted after the runtime's own frames are left out.
 */
export function fingerprintOf(error: unknown): string {
  try {
    if (error instanceof Error) {
      const frames = String(error.stack ?? '')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.startsWith('at ') && !isNodeRuntimeFrame(line))
        .slice(0, TOP_FRAMES);
      return [error.name, error.message, ...frames].join('\n');
    }
    return `${typeof error}\n${String(error)}`;
  } catch {
    return 'unprintable';
  }
}

/**
 * Whether a frame (`at fn (location)` or `at location`) lies in Node's own modules (`node:…`).
 * Such frames name no call site of ours, and whether they are there at all depends on what
 * drained the microtask queue: a continuation after `await` sits on
 * `process.processTicksAndRejections` when Node's tick queue drained it, and on no JS frame
 * when native code did, as after the first, uncached `import()` of a lazy chunk. So the first
 * call of a server function after a start (Start imports its chunk then) had one frame fewer
 * than every later call, and another digest. Their line numbers are Node's, and move with it.
 */
export function isNodeRuntimeFrame(frame: string): boolean {
  // The location sits in the last parentheses, or follows `at ` for a frame with no name.
  const location = /\(([^()]*)\)$/.exec(frame)?.[1] ?? frame.replace(/^at /, '');
  return location.startsWith('node:');
}
