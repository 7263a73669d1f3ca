/**
 * Start 1.120's code splitter turns `errorComponent: undefined` (or notFound/pending) into a
 * lazy component whose chunk exports nothing. Rendering it throws a fresh promise on every
 * try, so SSR never finishes and spins the CPU, starving every other request. Before a route
 * is first rendered, its lazy components are loaded once and, if one turns out empty, removed
 * so the router falls back to its default component. Only the routes a page matched are
 * checked: their error and not-found components are the only ones SSR can render, and a
 * route nobody visits does not warn in every process's log.
 */
import type { AnyRoute, AnyRouter } from '@tanstack/react-router';

const KINDS = ['errorComponent', 'notFoundComponent', 'pendingComponent'] as const;

type LazyComponent = ((props: object) => unknown) & { preload?: () => Promise<void> };

/** Per route id: checked, or being checked. Routes are module singletons: once per process. */
const checkedRoutes = new Map<string, Promise<void>>();

/** Resolves once the lazy error/notFound/pending components of the matched routes are known to render. */
export function dropEmptyLazyComponents(router: AnyRouter): Promise<void> {
  const routes = router.state.matches
    .map((match) => router.looseRoutesById[match.routeId] as AnyRoute | undefined)
    .filter((route): route is AnyRoute => route !== undefined);
  return Promise.all(routes.map(checkOnce)).then(() => undefined);
}

function checkOnce(route: AnyRoute): Promise<void> {
  let check = checkedRoutes.get(route.id);
  if (!check) {
    check = checkRoute(route);
    checkedRoutes.set(route.id, check);
  }
  return check;
}

async function checkRoute(route: AnyRoute): Promise<void> {
  const options = route.options as unknown as Record<string, unknown>;
  for (const kind of KINDS) {
    const component = options[kind] as LazyComponent | undefined;
    if (typeof component !== 'function' || typeof component.preload !== 'function') continue;
    try {
      await component.preload();
    } catch (error) {
      // A chunk that fails to load is not proof of emptiness: keep the component, check this
      // route again on a later request.
      checkedRoutes.delete(route.id);
      console.warn(
        `[monitoring] route ${route.id}: could not load its ${kind}: ${error instanceof Error ? error.message : error}`,
      );
      continue;
    }
    if (rendersNothing(component)) {
      options[kind] = undefined;
      console.warn(
        `[monitoring] route ${route.id}: ${kind} is an empty lazy component (\`${kind}: undefined\`?); using the default`,
      );
    }
  }
}

/**
 * A loaded lazy route component returns an element when called; an empty one throws a
 * promise again. Calling it as a function is safe: it uses no hooks.
 */
function rendersNothing(component: LazyComponent): boolean {
  try {
    component({});
    return false;
  } catch (thrown) {
    return typeof (thrown as { then?: unknown } | null)?.then === 'function';
  }
}
