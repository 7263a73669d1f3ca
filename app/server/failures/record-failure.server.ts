/**
 * The one place a server-side failure is handled: digest, one JSON log line, one report.
 * Callers get back a PublicServerError to throw or serialise in place of the original.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';
import { thisWorker } from '#app/server/cluster/worker-link.server';
import { serverConfig } from '#app/server/env.server';
import { errorLimited } from '#app/server/logging/rate-limited-log';
import { processShared } from '#app/server/process-shared.server';
import { failureBlock } from './dev-failure-block';
import { rememberServerFailure } from './dev-overlay.server';
import { type FailureContext, type FailurePhase, failureLogLine } from './log-line';
import { computeDigest, isPublicServerError, PublicServerError } from './public-error.server';
import { reportServerFailure } from './sentry-client.server';

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
  const worker = thisWorker();
  errorLimited(`failure ${full.route}`, logEntry(original.error, publicError.digest, full, worker));
  reportServerFailure(original.error, publicError.digest, full);
  // Development: the page, which has only the digest, shows the failure in vite's overlay.
  // Before the response leaves: the page asks for it as soon as it runs.
  if (!serverConfig().production) rememberServerFailure(publicError.digest, original.error, full);
}

/**
 * Production: the one JSON line a log pipeline parses. Development: a short block a person
 * reads, with a code frame from the project's files (the dev server runs in the project).
 */
function logEntry(error: unknown, digest: string, context: FailureContext, worker?: number) {
  if (serverConfig().production) {
    return failureLogLine(error, digest, context, new Date(), worker);
  }
  const root = process.cwd();
  return failureBlock(error, digest, context, {
    root,
    readSource: (file) => readFileSync(join(root, file), 'utf8'),
  });
}

/** Sanitise and record in one step, for callers that know the request already. */
export function captureServerFailure(error: unknown, context: FailureContext): PublicServerError {
  const publicError = sanitiseFailure(error, context.phase);
  recordFailure(publicError, context);
  return publicError;
}
