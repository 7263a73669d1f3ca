import { pageRecorder } from './recorder/recorder';

/**
 * Reports an error that a React error boundary caught, exactly once: React 19 hands caught
 * errors to `onCaughtError`, which this app leaves at React's default (console.error), and the
 * router's CatchBoundary reports nothing itself (docs/decisions/0403). Through the page's
 * recorder, which hands it to the SDK now or once it has loaded (decisions 0910, 0510). Returns the
 * event id. Never throws: it runs inside an error component.
 */
export function reportClientError(error: unknown): string | undefined {
  try {
    return pageRecorder()?.captureException(error, {
      // As @sentry/react's own ErrorBoundary marks it: a fallback was shown, so it was handled.
      type: 'auto.function.react.error_boundary',
      handled: true,
    });
  } catch {
    // Nothing left to do: reporting must not break the fallback.
    return undefined;
  }
}
