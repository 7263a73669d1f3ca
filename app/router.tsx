import { createRouter as createTanStackRouter } from '@tanstack/react-router';
import { ErrorFallback, NotFound } from './components/ErrorFallback';

import { parsePlainSearch, stringifyPlainSearch } from './plain-search';
import { routeTree } from './routeTree.gen';
import type { PageCacheOptIn } from './server/page-cache/page-cache-policy';
import type { SiteConfig } from './site-config';

/** The server passes its site config; the browser passes the one the page carries. */
export function createRouter(site: SiteConfig | undefined) {
  return createTanStackRouter({
    routeTree,
    context: { site },
    scrollRestoration: true,
    defaultPreload: 'intent',
    defaultErrorComponent: ErrorFallback,
    defaultNotFoundComponent: NotFound,
    parseSearch: parsePlainSearch,
    stringifySearch: stringifyPlainSearch,
  });
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
