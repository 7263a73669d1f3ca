/**
 * The one place a server-side failure is handled: digest, one JSON log line, one report.
 * Callers get back a PublicServerError to throw or serialise in place of the original.
 */

import { errorLimited } from '#app/server/logging/rate-limited-log';
import { processShared } from '#app/server/process-shared.server';
import { computeDigest } from './digest.server';
import { type FailureContext, type FailurePhase, failureLogLine } from './log-line';
import { isPublicServerError, PublicServerError } from './public-error.server';
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
  const seen = typeof error === 'object' && error !== null ? publicErrors.get(error) : undefined;
  if (seen) return seen;
  const publicError = new PublicServerError(computeDigest(error));
  originals.set(publicError, { error, phase, recorded: false });
  if (typeof error === 'object' && error !== null) publicErrors.set(error, publicError);
  return publicError;
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
  // Limited per digest: a request that trips one bug in a loop cannot fill the disk, and it
  // cannot hide a different failure either.
  errorLimited(
    `failure ${publicError.digest}`,
    failureLogLine(original.error, publicError.digest, full),
  );
  reportServerFailure(original.error, publicError.digest, full);
}

/** Sanitise and record in one step, for callers that know the request already. */
export function captureServerFailure(error: unknown, context: FailureContext): PublicServerError {
  const publicError = sanitiseFailure(error, context.phase);
  recordFailure(publicError, context);
  return publicError;
}
