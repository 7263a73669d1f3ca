/**
 * When the whole page has hydrated. React commits the document's shell first (the root route's
 * document and navigation: `shellCommitted`, from an effect beside `<StartClient>`), and Router
 * 1.120 renders the route under the root inside a Suspense boundary (the root's `<Outlet>`),
 * which React hydrates in a later pass; the router emits `onRendered` when that content commits
 * (from its `OnRendered` element, rendered beside the route when `scrollRestoration` is on, as
 * app/router.tsx has it). Framework-free through a structural type, to be unit tested.
 */

export interface RootMatchState {
  status: string;
  globalNotFound?: boolean;
}

export interface RenderedRouter {
  options: { scrollRestoration?: boolean };
  state: { matches: ReadonlyArray<RootMatchState> };
  subscribe(event: 'onRendered', listener: () => void): () => void;
}

/**
 * Whether the router renders a route under the root, so that its content hydrates after the
 * shell and `onRendered` follows. Not when the root shows the not-found page (an unknown path)
 * or its error page: then the shell is the whole page.
 */
export function routeContentFollowsShell(router: RenderedRouter): boolean {
  const [root, child] = router.state.matches;
  return (
    router.options.scrollRestoration === true &&
    root?.status === 'success' &&
    root.globalNotFound !== true &&
    child !== undefined
  );
}

/** Subscribe before hydration starts: `onRendered` may come in the same pass as the shell. */
export function whenPageHydrated(
  router: RenderedRouter,
  shellCommitted: Promise<void>,
): Promise<void> {
  const routeRendered = new Promise<void>((resolve) => {
    const unsubscribe = router.subscribe('onRendered', () => {
      unsubscribe();
      resolve();
    });
  });
  return shellCommitted.then(() => (routeContentFollowsShell(router) ? routeRendered : undefined));
}
