/**
 * Renders inbox components that hold router links inside a memory router, as the pages do.
 * Resolves once the router has rendered.
 */
import {
  createMemoryHistory,
  createRootRoute,
  createRouter,
  RouterProvider,
} from '@tanstack/react-router';
import { render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';

export async function renderInRouter(ui: ReactNode) {
  const rootRoute = createRootRoute({
    component: () => <div data-testid="router-outlet">{ui}</div>,
  });
  const router = createRouter({
    routeTree: rootRoute,
    history: createMemoryHistory({ initialEntries: ['/errors'] }),
  });
  const rendered = render(<RouterProvider router={router} />);
  await screen.findByTestId('router-outlet');
  return rendered;
}
