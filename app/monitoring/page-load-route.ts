/**
 * Whether the router still shows the route the page was loaded on. Tracing starts after
 * hydration, and the TanStack Router integration names the page load after the route the router
 * shows *then*: after a quick navigation (before the late chunk arrived) that would be the next
 * page's name on the first page's load, so late-monitoring.ts leaves that page load out.
 * Framework-free through a structural type, like router-not-found.ts, to be unit tested.
 */

export interface RouterLocation {
  pathname: string;
  search: unknown;
}

export interface PageLoadRouter {
  state: { location: RouterLocation };
  matchRoutes(
    pathname: string,
    search: unknown,
    options: { preload: boolean; throwOnError: boolean },
  ): ReadonlyArray<{ routeId: string }>;
}

/** The route a page load is named after: the last match, as the integration picks it. */
export function routeIdOf(router: PageLoadRouter, location: RouterLocation): string | undefined {
  const matches = router.matchRoutes(location.pathname, location.search, {
    preload: false,
    throwOnError: false,
  });
  return matches.at(-1)?.routeId;
}

export function showsPageLoadRoute(router: PageLoadRouter, pageLoad: RouterLocation): boolean {
  return routeIdOf(router, pageLoad) === routeIdOf(router, router.state.location);
}
