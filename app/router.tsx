import { createRouter as createTanStackRouter } from '@tanstack/react-router';
import { ErrorFallback, NotFound } from './components/ErrorFallback';

import { parsePlainSearch, stringifyPlainSearch } from './plain-search';
import { routeTree } from './routeTree.gen';
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
}
