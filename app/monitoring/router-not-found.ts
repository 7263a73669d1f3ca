/**
 * Whether the router is showing the not-found page. Framework-free on purpose: it reads the
 * two fields Router 1.120 sets (router-core's own `hasNotFoundMatch` reads the same), through
 * a structural type, so the rule can be unit tested without a router.
 * - `status: 'notFound'`: a route's beforeLoad or loader threw `notFound()` (for example
 *   /errors with SENTRY_DSN set, or /sentry-example-page with example routes off);
 * - `globalNotFound`: the path matched only a prefix of the route tree (`/about/nope`).
 * The tracing integration still names such page loads after the last route that matched.
 */

export interface RouteMatchState {
  status?: string;
  globalNotFound?: boolean;
}

export interface RouterMatchesSource {
  state: { matches: ReadonlyArray<RouteMatchState> };
}

export function showsNotFound(matches: ReadonlyArray<RouteMatchState>): boolean {
  return matches.some((match) => match.status === 'notFound' || match.globalNotFound === true);
}
