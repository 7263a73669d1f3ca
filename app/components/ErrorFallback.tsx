/**
 * The router's fallbacks, rendered inside the root document: the error fallback (the root's
 * errorComponent and the router's default), which reports a browser-side failure once, and the
 * not-found page.
 */
import { type ErrorComponentProps, Link, useRouter } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { describeFailure, serverRenderDigestIn } from '#app/monitoring/failure-view';
import { pageRecorder } from '#app/monitoring/recorder/recorder';

/**
 * The root error boundary's fallback (root route's errorComponent and the router's
 * defaultErrorComponent). Says which side failed and the digest, never the error's own text:
 * in development that is shown over it, in vite's overlay (app/monitoring/dev-overlay.ts). Must
 * never throw: whatever was thrown is read through describeFailure.
 */
export function ErrorFallback(props: ErrorComponentProps) {
  return <ErrorFallbackView {...props} />;
}

export interface ErrorFallbackViewProps {
  error: unknown;
  reset?: () => void;
}

export function ErrorFallbackView({ error, reset }: ErrorFallbackViewProps) {
  const router = useRouter();
  // Read once, when the fallback first renders: the server's marker is gone after this commit.
  const [serverRenderDigest] = useState(() =>
    typeof document === 'undefined' ? undefined : serverRenderDigestIn(document),
  );
  const view = describeFailure(error, serverRenderDigest);

  useEffect(() => {
    // Server failures were reported on the server; the browser reports its own, once.
    if (view.side === 'client') reportOnce(error);
    // Development: the real error in vite's overlay, over this same generic page (decision 0970).
    if (import.meta.env.DEV) {
      void import('#app/monitoring/dev-overlay').then((overlay) =>
        overlay.showDevOverlay(error, view.digest),
      );
    }
  }, [error, view.side, view.digest]);

  const tryAgain = () => {
    reset?.();
    // Re-runs beforeLoad and loaders; the new load also resets the route's boundary.
    void router.invalidate();
  };

  return (
    <main className="page" data-testid="error-fallback">
      {/* The alert is inside the main landmark, not on it: role="alert" on <main> took the page's
          main landmark away (axe: landmark-one-main, aria-allowed-role). */}
      <div role="alert">
        {/* The contract's message is the heading, as Next.js shows it: a separate "Application
            error" heading above it said the same words twice. */}
        <h1 className="error-headline">{view.message}</h1>
        {view.digest ? <p data-testid="error-digest">{`Digest: ${view.digest}`}</p> : null}
      </div>
      <p className="actions">
        <button type="button" onClick={tryAgain}>
          Try again
        </button>{' '}
        {/* After a server-side failure the page's router state is partial (a failed root
            beforeLoad leaves child routes without their data): start home from a fresh load. */}
        <Link to="/" reloadDocument={view.side === 'server'}>
          Go to the home page
        </Link>
      </p>
    </main>
  );
}

const reported = new WeakSet<object>();

function reportOnce(error: unknown): void {
  if (typeof error === 'object' && error !== null) {
    if (reported.has(error)) return;
    reported.add(error);
  }
  reportClientError(error);
}

/**
 * Reports an error that a React error boundary caught, exactly once: React 19 hands caught
 * errors to `onCaughtError`, which this app leaves at React's default (console.error), and the
 * router's CatchBoundary reports nothing itself (docs/decisions/0403). Through the page's
 * recorder, which hands it to the SDK now or once it has loaded (decisions 0910, 0510). Returns the
 * event id. Never throws: it runs inside an error component.
 */
function reportClientError(error: unknown): string | undefined {
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

export function NotFound() {
  return (
    <main className="page">
      <h1>Page not found</h1>
      <p>There is no page at this address.</p>
      <p>
        <Link to="/">Go to the home page</Link>
      </p>
    </main>
  );
}
