/**
 * A server-side failure, handled once: its digest and the public error that replaces it, the one
 * JSON log line, then the report.
 */

import { createHash } from 'node:crypto';
import { SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';
import { thisWorker } from '#app/server/cluster/worker-link.server';
import { serverConfig } from '#app/server/env.server';
import { errorLimited } from '#app/server/logging/rate-limited-log';
import { processShared } from '#app/start-1.120/process-shared.server';
import { devFailureEntry } from './dev-failure.server';
import { reportServerFailure } from './sentry-client.server';
import { stackWithOriginalNames } from './server-frames.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'sanitised-failures': {
      originals: WeakMap<PublicServerError, Original>;
      publicErrors: WeakMap<object, PublicServerError>;
    };
  }
}

/**
 * The one place a server-side failure is handled: digest, one JSON log line, one report.
 * Callers get back a PublicServerError to throw or serialise in place of the original.
 */
interface Original {
  error: unknown;
  phase: FailurePhase;
  recorded: boolean;
}

const { originals, publicErrors } = processShared('sanitised-failures', () => ({
  // Server-side only: the original never travels with the public error.
  originals: new WeakMap<PublicServerError, Original>(),
  // The same thrown object seen twice (React reports a shell error to onError and onShellError).
  publicErrors: new WeakMap<object, PublicServerError>(),
}));

/** Replaces an error by its public form, keeping the original here for `recordFailure`. */
export function sanitiseFailure(error: unknown, phase: FailurePhase): PublicServerError {
  if (isPublicServerError(error)) return error;
  // A server function's public error, read back by the loader that called it during SSR: the
  // failure was recorded where it happened, under this digest. Passed on, never recorded again
  // (it was logged twice, and the page showed a digest of its own).
  const relayed = relayedDigestOf(error);
  if (relayed) return new PublicServerError(relayed);
  const seen = typeof error === 'object' && error !== null ? publicErrors.get(error) : undefined;
  if (seen) return seen;
  const publicError = new PublicServerError(computeDigest(error));
  originals.set(publicError, { error, phase, recorded: false });
  if (typeof error === 'object' && error !== null) publicErrors.set(error, publicError);
  return publicError;
}

/** The digest of a PublicServerError that crossed a serializer (its class is lost on the way). */
function relayedDigestOf(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'ServerError') return undefined;
  if (error.message !== SERVER_FAILURE_MESSAGE) return undefined;
  const digest = (error as { digest?: unknown }).digest;
  return typeof digest === 'string' && /^[0-9a-f]{10}$/.test(digest) ? digest : undefined;
}

/** Logs and reports a sanitised failure once; later calls for the same error do nothing. */
export function recordFailure(
  publicError: PublicServerError,
  context: Omit<FailureContext, 'phase'>,
): void {
  const original = originals.get(publicError);
  if (!original || original.recorded) return;
  original.recorded = true;
  const full: FailureContext = { phase: original.phase, ...context };
  // Limited per route (a page's route, a server function's id): a fixed set, so a client that
  // varies a failure's message (and so its digest) cannot open kinds without end, and a loop
  // on one route cannot hide another route's failure.
  // With several workers, the line names the one that met the failure.
  // Reported first: the event's id goes on the log line, so the line leads to the event.
  const eventId = reportServerFailure(original.error, publicError.digest, full);
  errorLimited(
    `failure ${full.route}`,
    logEntry(original.error, publicError.digest, full, { worker: thisWorker(), eventId }),
  );
}

/**
 * Production: the one JSON line a log pipeline parses. Development: a short block a person
 * reads, with a code frame from the project's files (the dev server runs in the project), and
 * the failure kept for the page's overlay.
 */
function logEntry(
  error: unknown,
  digest: string,
  context: FailureContext,
  extras: { worker?: number; eventId?: string },
) {
  const config = serverConfig();
  if (!config.production) return devFailureEntry(error, digest, context);
  const { eventId } = extras;
  // The inbox's own page for the event; with Sentry the id is what to search for there.
  const inboxLink =
    eventId && config.publicUrl && config.monitoring.kind === 'local-inbox'
      ? new URL(`/errors/${eventId}`, config.publicUrl).href
      : undefined;
  return failureLogLine(error, digest, context, new Date(), {
    ...extras,
    inboxLink,
    originalNames: stackWithOriginalNames,
  });
}

/** Sanitise and record in one step, for callers that know the request already. */
export function captureServerFailure(error: unknown, context: FailureContext): PublicServerError {
  const publicError = sanitiseFailure(error, context.phase);
  recordFailure(publicError, context);
  return publicError;
}

/**
 * The only form in which a server-side failure leaves the server: the generic message and the
 * digest (the one id the log line, the Sentry event and the page share). Start's serializer copies an error's own fields, message and (in development) stack
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

/** Where on the server a failure happened. */
export type FailurePhase =
  | 'loader'
  | 'beforeLoad'
  | 'params'
  | 'search'
  | 'render'
  | 'server-function';

export interface FailureContext {
  phase: FailurePhase;
  /** Route id (`/sentry-example-page/ssr-error`) or server function id. */
  route: string;
  method: string;
  /** Path and query of the request. */
  url?: string;
  /**
   * The request itself (its absolute URL and headers), for the report's `request`: never
   * logged, and the report keeps only an allow-list of its headers (server-event-context.server.ts).
   */
  incoming?: { url: string; headers: Iterable<[string, string]> };
}

export interface FailureLogRecord extends Omit<FailureContext, 'incoming'> {
  level: 'error';
  time: string;
  digest: string;
  /** The report's event id: `/errors/<eventId>` in the inbox, or a search in Sentry. */
  eventId?: string;
  /** The inbox's page for the event, when PUBLIC_URL says where the inbox is. */
  inboxLink?: string;
  /** The worker process that met it, when the server runs several (WEB_CONCURRENCY). */
  worker?: number;
  name: string;
  message: string;
  stack?: string;
}

export interface LogLineExtras {
  worker?: number;
  eventId?: string;
  inboxLink?: string;
  /** The stack's text with our functions' original names (server-frames.server.ts). */
  originalNames?: (stack: string) => string;
}

/** The one JSON line an operator greps for. Pure; never throws, whatever was thrown. */
export function failureLogLine(
  error: unknown,
  digest: string,
  context: FailureContext,
  now: Date = new Date(),
  extras: LogLineExtras = {},
): string {
  const { worker, eventId, inboxLink, originalNames } = extras;
  const { phase, route, method, url } = context;
  const fields = errorFields(error);
  if (fields.stack && originalNames) fields.stack = originalNames(fields.stack);
  const record: FailureLogRecord = {
    level: 'error',
    time: now.toISOString(),
    digest,
    ...(eventId === undefined ? {} : { eventId }),
    ...(inboxLink === undefined ? {} : { inboxLink }),
    ...(worker === undefined ? {} : { worker }),
    phase,
    route,
    method,
    ...(url === undefined ? {} : { url }),
    ...fields,
  };
  return JSON.stringify(record);
}

function errorFields(error: unknown): { name: string; message: string; stack?: string } {
  try {
    if (error instanceof Error) {
      return { name: error.name, message: String(error.message), stack: error.stack };
    }
    return { name: typeof error, message: String(error) };
  } catch {
    return { name: typeof error, message: 'unprintable value' };
  }
}
