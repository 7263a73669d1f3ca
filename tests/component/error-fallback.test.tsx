import {
  createMemoryHistory,
  createRootRoute,
  createRouter,
  RouterProvider,
} from '@tanstack/react-router';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { StrictMode } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorFallbackView } from '#app/components/ErrorFallback';
import { CLIENT_FAILURE_MESSAGE, SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';
import { RECORDER_GLOBAL } from '#app/monitoring/recorder/recorder';

/** The page's recorder, as the inline script leaves it on `window`: what a report reaches. */
const recorder = {
  captureException: vi.fn((_error: unknown, _mechanism: unknown) => 'e'.repeat(32)),
};
/** How the fallback marks what it reports: handled, as @sentry/react's ErrorBoundary does. */
const BOUNDARY_MECHANISM = { type: 'auto.function.react.error_boundary', handled: true };

const SECRET = 'db-password-hunter2';

async function renderFallback(error: unknown, opts: { strict?: boolean } = {}) {
  const reset = vi.fn();
  const rootRoute = createRootRoute({
    component: () => <ErrorFallbackView error={error} reset={reset} />,
  });
  const router = createRouter({
    routeTree: rootRoute,
    history: createMemoryHistory({ initialEntries: ['/'] }),
  });
  await router.load();
  const invalidate = vi.spyOn(router, 'invalidate');
  const tree = () => {
    const app = <RouterProvider router={router} />;
    return opts.strict ? <StrictMode>{app}</StrictMode> : app;
  };
  const view = render(tree());
  await screen.findByTestId('error-fallback');
  return { ...view, reset, invalidate, renderAgain: () => view.rerender(tree()) };
}

function secretError(): Error {
  const error = new Error(`query failed: ${SECRET}`);
  error.stack = `Error: query failed: ${SECRET}\n    at secretFunction (envelope.ts:1:1)`;
  return error;
}

beforeEach(() => {
  Reflect.set(window, RECORDER_GLOBAL, recorder);
  recorder.captureException.mockClear();
});

describe('ErrorFallback', () => {
  it('shows the client-side message and no digest for an error from the browser', async () => {
    await renderFallback(secretError());
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(CLIENT_FAILURE_MESSAGE);
    expect(screen.queryByText(SERVER_FAILURE_MESSAGE)).toBeNull();
    expect(screen.queryByTestId('error-digest')).toBeNull();
  });

  it('shows the server-side message and the digest for a server failure', async () => {
    await renderFallback(
      Object.assign(new Error(SERVER_FAILURE_MESSAGE), { digest: '0a1b2c3d4e' }),
    );
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(SERVER_FAILURE_MESSAGE);
    expect(screen.queryByText(CLIENT_FAILURE_MESSAGE)).toBeNull();
    expect(screen.getByTestId('error-digest').textContent).toBe('Digest: 0a1b2c3d4e');
  });

  it.each([
    ['client', () => secretError(), CLIENT_FAILURE_MESSAGE],
    ['server', () => ({ digest: '0a1b2c3d4e' }), SERVER_FAILURE_MESSAGE],
  ])(
    'says "Application error" once, as its one heading (%s side)',
    async (_side, error, message) => {
      const { container } = await renderFallback(error());
      expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(message);
      expect(container.textContent?.split('Application error')).toHaveLength(2);
    },
  );

  // Development shows them over the page, in vite's overlay (tests/e2e/dev-overlay.spec.ts).
  it('is the page’s main landmark, with the message and digest announced as an alert in it', async () => {
    await renderFallback(
      Object.assign(new Error(SERVER_FAILURE_MESSAGE), { digest: '0a1b2c3d4e' }),
    );
    const alert = within(screen.getByRole('main')).getByRole('alert');
    expect(alert.textContent).toBe(`${SERVER_FAILURE_MESSAGE}Digest: 0a1b2c3d4e`);
  });

  it('never shows the message or stack on the page', async () => {
    const { container } = await renderFallback(secretError());
    expect(container.textContent).not.toContain(SECRET);
    expect(container.textContent).not.toContain('secretFunction');
  });

  it('"Try again" resets the boundary and re-runs the route', async () => {
    const { reset, invalidate } = await renderFallback(secretError());
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    });
    expect(reset).toHaveBeenCalledTimes(1);
    expect(invalidate).toHaveBeenCalledTimes(1);
  });

  it('links home', async () => {
    await renderFallback(secretError());
    expect(screen.getByRole('link', { name: 'Go to the home page' }).getAttribute('href')).toBe(
      '/',
    );
  });

  it('hands a client-side error to the page’s recorder once, a server-side one not at all', async () => {
    const error = secretError();
    const { unmount } = await renderFallback(error);
    expect(recorder.captureException.mock.calls).toEqual([[error, BOUNDARY_MECHANISM]]);
    unmount();
    recorder.captureException.mockClear();
    await renderFallback({ digest: '0a1b2c3d4e' });
    expect(recorder.captureException).not.toHaveBeenCalled();
  });

  it('reports an error once under StrictMode, across re-renders and a second boundary', async () => {
    const error = secretError();
    // StrictMode runs every effect twice in development, as `npm run dev` does.
    const first = await renderFallback(error, { strict: true });
    first.renderAgain();
    expect(screen.getAllByTestId('error-fallback')).toHaveLength(1);
    first.unmount();
    const second = await renderFallback(error, { strict: true });
    expect(recorder.captureException).toHaveBeenCalledTimes(1);
    second.unmount();
    // A different error is reported on its own.
    await renderFallback(secretError(), { strict: true });
    expect(recorder.captureException).toHaveBeenCalledTimes(2);
  });

  it('shows a server render failure the browser rendered again as the server view, unreported', async () => {
    // What React's streaming SSR leaves for a boundary that failed on the server.
    const marker = document.createElement('template');
    marker.setAttribute('data-dgst', '1129046e5f');
    document.body.append(marker);
    try {
      await renderFallback(secretError());
      expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(SERVER_FAILURE_MESSAGE);
      expect(screen.getByTestId('error-digest').textContent).toBe('Digest: 1129046e5f');
      expect(recorder.captureException).not.toHaveBeenCalled();
    } finally {
      marker.remove();
    }
  });

  it.each([
    ['a thrown string', 'just a string'],
    ['null', null],
    ['undefined', undefined],
    ['an object without message', { code: 42 }],
    ['a number', 42],
  ])('renders without throwing for %s', async (_name, thrown) => {
    await renderFallback(thrown);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(CLIENT_FAILURE_MESSAGE);
  });
});
