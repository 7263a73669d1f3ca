import * as Sentry from '@sentry/react';

/**
 * Reports an error that a React error boundary caught. React 19 hands caught errors to
 * `onCaughtError`, which this app leaves at React's default (console.error), so this is the
 * one place a caught error is reported. Returns the event id.
 */
export function reportClientError(error: unknown): string {
  return Sentry.captureException(error, {
    mechanism: { type: 'auto.react.error_boundary', handled: true },
  });
}
