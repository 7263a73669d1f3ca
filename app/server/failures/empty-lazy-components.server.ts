/**
 * Start 1.120's code splitter turns `errorComponent: undefined` (or notFound/pending) into a
 * lazy component whose chunk exports nothing. Rendering it throws a fresh promise on every
 * try, so SSR never finishes and spins the CPU, starving every other request. Before the
 * first render, each such lazy component is loaded once and, if it turns out empty, removed
 * so the router falls back to its default component.
 */
import type { AnyRoute, AnyRouter } from '@tanstack/react-router';

const KINDS = ['errorComponent', 'notFoundComponent', 'pendingComponent'] as const;

type LazyComponent = ((props: object) => unknown) & { preload?: () => Promise<void> };

let checked: Promise<void> | undefined;

/** Resolves once every route's lazy error/notFound/pending component is known to render. */
export function dropEmptyLazyComponents(router: AnyRouter): Promise<void> {
  // Routes are module singletons: one check per process is enough.
  // A failed check is tried again by the next request, not cached for the process's life.
  checked ??= checkRoutes(Object.values(router.looseRoutesById) as AnyRoute[]).catch((error) => {
    checked = undefined;
    throw error;
  });
  return checked;
}

async function checkRoutes(routes: AnyRoute[]): Promise<void> {
  for (const route of routes) {
    const options = route.options as unknown as Record<string, unknown>;
    for (const kind of KINDS) {
      const component = options[kind] as LazyComponent | undefined;
      if (typeof component !== 'function' || typeof component.preload !== 'function') continue;
      try {
        await component.preload();
      } catch (error) {
        // A chunk that fails to load is not proof of emptiness: keep the component, check again
        // on a later request.
        checked = undefined;
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
