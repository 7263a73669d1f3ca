/**
 * The app's router, the same on both sides: its options (the fallbacks, search params as plain
 * strings) and what a route may tell the page cache.
 */
import { createRouter as createTanStackRouter } from '@tanstack/react-router';
import { ErrorFallback, NotFound } from './components/ErrorFallback';
import { routeTree } from './routeTree.gen';
import type { PageCacheOptIn } from './server/page-cache/page-cache-policy';
import type { SiteConfig } from './site-config';

/** A route tree as a router processed it: what each router otherwise works out in its constructor. */
export interface ProcessedRouteTree {
  routesById: object;
  routesByPath: object;
  flatRoutes: unknown[];
}

/** What a router made of its route tree, to lend to the next one. */
export function processedRouteTreeOf(router: ProcessedRouteTree): ProcessedRouteTree {
  const { routesById, routesByPath, flatRoutes } = router;
  return { routesById, routesByPath, flatRoutes };
}

/**
 * The server passes its site config; the browser passes the one the page carries. `processed`:
 * the route tree as an earlier router processed it, lent to this one (the server's routers,
 * one per request, app/ssr.tsx), which then does not process it again.
 */
export function createRouter(site: SiteConfig | undefined, processed?: ProcessedRouteTree) {
  const router = createTanStackRouter({
    // Router 1.120 processes the tree in its constructor when given one: lent, it is set after.
    routeTree: (processed ? undefined : routeTree) as typeof routeTree,
    context: { site },
    scrollRestoration: true,
    defaultPreload: 'intent',
    defaultErrorComponent: ErrorFallback,
    defaultNotFoundComponent: NotFound,
    parseSearch: parsePlainSearch,
    stringifySearch: stringifyPlainSearch,
  });
  if (processed) {
    Object.assign(router, processed);
    // What `update` compares with the options' tree before processing it again.
    router.routeTree = routeTree;
    router.options.routeTree = routeTree;
  }
  return router;
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createRouter>;
  }
  /** What a route tells the page cache (app/server/page-cache/, decision 1300). */
  interface StaticDataRouteOption {
    /** The route's page is the same for every visitor: kept after its first render. */
    pageCache?: PageCacheOptIn;
    /** Query keys this route acts on per request: a request carrying one is never cached. */
    perRequestQuery?: readonly string[];
    /** The root's only: the not-found page is the same for every visitor. */
    notFoundPageCache?: PageCacheOptIn;
  }
}

/**
 * Search params as plain strings, as an HTML form sends them. The router's default reads each
 * value as JSON, so a release "1.10" typed into the /errors filter form arrived as the number
 * 1.1, and an event id of 32 digits as a float; and its links wrote strings that look like JSON
 * in quotes (`?release=%221.10%22`), which a form never sends. Here every value stays the text
 * in the URL (a repeated key gives its values in order) and each route's valibot schema says
 * what the text must be. Pure.
 */
export type PlainSearch = Record<string, string | string[]>;

export function parsePlainSearch(searchStr: string): PlainSearch {
  const search: PlainSearch = {};
  for (const [key, value] of new URLSearchParams(searchStr)) {
    const before = search[key];
    search[key] =
      before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return search;
}

/** Strings as they are, numbers and booleans as text, lists as repeated keys; undefined left out. */
export function stringifyPlainSearch(search: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(search)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      params.append(key, typeof item === 'object' ? JSON.stringify(item) : String(item));
    }
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
