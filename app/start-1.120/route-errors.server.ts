/**
 * Route failures on the server (beforeLoad, loader, params, search): replaced by their public
 * form before Start dehydrates them, and recorded with the request once the load is over.
 */
import { type AnyRoute, type AnyRouter, isNotFound, isRedirect } from '@tanstack/react-router';
import {
  type FailurePhase,
  isPublicServerError,
  type PublicServerError,
  recordFailure,
  sanitiseFailure,
} from '#app/server/failures/record-failure.server';
import { processShared } from '#app/server/process-shared.server';

const PHASE_OF_ROUTER_CODE: Record<string, FailurePhase> = {
  BEFORE_LOAD: 'beforeLoad',
  PARSE_PARAMS: 'params',
  VALIDATE_SEARCH: 'search',
};

const { installed, serialPhaseFailures } = processShared('route-failure-hooks', () => ({
  installed: new WeakSet<AnyRoute>(),
  /** Failures from beforeLoad/params/search: Start never dehydrates these matches itself. */
  serialPhaseFailures: new WeakSet<PublicServerError>(),
}));

/**
 * Start calls a route's `onError` with every loader or beforeLoad error (never redirects or
 * not-found) before storing it on the match, and stores whatever `onError` throws instead.
 * Throwing the public error there is the one hook that runs before the match's data is
 * written into the HTML. Routes are module singletons: install once per route.
 */
export function sanitiseRouteFailures(router: AnyRouter): void {
  for (const route of Object.values(router.looseRoutesById) as AnyRoute[]) {
    if (installed.has(route)) continue;
    installed.add(route);
    const options = route.options as { onError?: (error: unknown) => void };
    const own = options.onError;
    options.onError = (error: unknown) => {
      let failure = error;
      try {
        own?.(error);
      } catch (thrown) {
        // The route's own onError may redirect; Start handles that. Anything else replaces it.
        if (isRedirect(thrown) || isNotFound(thrown)) throw thrown;
        failure = thrown;
      }
      const routerCode = (error as { routerCode?: unknown } | null)?.routerCode;
      const phase =
        (typeof routerCode === 'string' && PHASE_OF_ROUTER_CODE[routerCode]) || 'loader';
      const publicError = sanitiseFailure(failure, phase);
      if (phase !== 'loader') serialPhaseFailures.add(publicError);
      throw publicError;
    };
  }
}

interface LoadedMatch {
  id: string;
  routeId: string;
  status: string;
  error?: unknown;
}

/**
 * After `router.load()`: records each failed match once (log line + report) and makes sure the
 * first match that failed before its loader is dehydrated too. Start only dehydrates matches
 * whose loader ran, so a throwing root `beforeLoad` left the browser with no error at all:
 * it hydrated the child page over the server's error page (React #418).
 */
export function settleRouteFailures(
  router: AnyRouter,
  request: { method: string; url: string },
): { failed: boolean } {
  const matches = router.state.matches as LoadedMatch[];
  let failed = false;
  let settledSerial = false;
  for (const match of matches) {
    if (match.status !== 'error') continue;
    failed = true;
    if (!isPublicServerError(match.error)) continue;
    const url = new URL(request.url);
    recordFailure(match.error, {
      route: match.routeId,
      method: request.method,
      url: url.pathname + url.search,
    });
    if (!settledSerial && serialPhaseFailures.has(match.error)) {
      settledSerial = true;
      router.serverSsr?.onMatchSettled({ router, match: router.getMatch(match.id) as never });
    }
  }
  return { failed };
}
