/**
 * A router given the route tree as an earlier router processed it (the server's, one per
 * request: app/ssr.tsx) matches as one that processed the tree itself, and does not process it
 * again, also when Start updates its options.
 */
import { createRootRoute, createRoute } from '@tanstack/react-router';
import { describe, expect, it, vi } from 'vitest';
import { createRouter, processedRouteTreeOf } from '#app/router';

// A tree of the shapes the app's has (a static page, a parameter, a nested index), without the
// app's routes, whose modules reach the server's.
vi.mock('#app/routeTree.gen', () => {
  const root = createRootRoute();
  const about = createRoute({ getParentRoute: () => root, path: '/about' });
  const errors = createRoute({ getParentRoute: () => root, path: '/errors' });
  const errorsIndex = createRoute({ getParentRoute: () => errors, path: '/' });
  const issue = createRoute({ getParentRoute: () => errors, path: '$issueId' });
  return {
    routeTree: root.addChildren([about, errors.addChildren([errorsIndex, issue])]),
  };
});

const matchedIds = (router: ReturnType<typeof createRouter>, path: string) =>
  router.matchRoutes({ pathname: path, search: {} } as never).map((match) => match.routeId);

describe('createRouter with a processed route tree', () => {
  const first = createRouter(undefined);
  const processed = processedRouteTreeOf(first);

  it('matches every path as a router that processed the tree itself', () => {
    const lent = createRouter(undefined, processed);
    for (const path of ['/about', '/errors', '/errors/', '/errors/42', '/nowhere']) {
      expect(matchedIds(lent, path), path).toEqual(matchedIds(createRouter(undefined), path));
    }
    expect(matchedIds(lent, '/errors/42')).toEqual(['__root__', '/errors', '/errors/$issueId']);
  });

  it('keeps the lent tree, also through an update of its options', () => {
    const lent = createRouter(undefined, processed);
    lent.update({ ...lent.options, context: { site: undefined } });
    expect(lent.routesById).toBe(first.routesById);
    expect(lent.flatRoutes).toBe(first.flatRoutes);
    expect(lent.routeTree).toBe(first.routeTree);
    // A router made without one processes its own.
    expect(createRouter(undefined).routesById).not.toBe(first.routesById);
  });
});
