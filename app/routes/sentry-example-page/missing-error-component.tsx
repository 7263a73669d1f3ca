import { createFileRoute } from '@tanstack/react-router';

/**
 * Reproduces a Start 1.120 trap, kept so a test proves it stays closed: the code splitter
 * turns `errorComponent: undefined` into a lazy component whose module exports nothing, and
 * SSR retried it forever at full CPU. The server now drops such components at the first
 * request (app/server/failures/empty-lazy-components.server.ts); routes must not write it.
 */
export const Route = createFileRoute('/sentry-example-page/missing-error-component')({
  loader: () => {
    throw new Error('Sentry example: loader failed on a route with errorComponent: undefined');
  },
  errorComponent: undefined,
  // Not the same words as ssr-error.tsx: byte-identical chunks would share one Sentry debug ID.
  component: () => <p>This never renders: the loader always fails, with no error component.</p>,
});
