import { describe, expect, it } from 'vitest';
import {
  type PageLoadRouter,
  type RouterLocation,
  routeIdOf,
  showsPageLoadRoute,
} from '#app/monitoring/page-load-route';

/** Matches as Router 1.120 does for these paths: the root, then the route (if any). */
const ROUTES: Record<string, string[]> = {
  '/': ['__root__', '/'],
  '/about': ['__root__', '/about'],
  '/about/': ['__root__', '/about'],
  '/errors/abc': ['__root__', '/errors/$eventId'],
  '/errors/def': ['__root__', '/errors/$eventId'],
  '/nowhere': ['__root__'],
};

const at = (pathname: string): RouterLocation => ({ pathname, search: {} });

function routerAt(pathname: string): PageLoadRouter {
  return {
    state: { location: at(pathname) },
    matchRoutes: (path) => (ROUTES[path] ?? []).map((routeId) => ({ routeId })),
  };
}

describe('routeIdOf', () => {
  it.each([
    ['/about', '/about'],
    ['/errors/abc', '/errors/$eventId'],
    ['/nowhere', '__root__'],
  ])('%s is named %s', (path, routeId) => {
    expect(routeIdOf(routerAt('/'), at(path))).toBe(routeId);
  });
});

describe('showsPageLoadRoute', () => {
  it.each([
    ['the same page', '/about', '/about', true],
    ['the URL normalised to the same route', '/about/', '/about', true],
    ['another page of the same route', '/errors/abc', '/errors/def', true],
    ['a page of another route', '/', '/about', false],
    ['the not-found page, then a route', '/nowhere', '/', false],
  ])('%s: loaded %s, now %s -> %s', (_case, loaded, now, shows) => {
    expect(showsPageLoadRoute(routerAt(now), at(loaded))).toBe(shows);
  });
});
