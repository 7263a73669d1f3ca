/**
 * The first client-side navigation after a server-rendered page load, made traceable.
 *
 * Router 1.120 names where a navigation comes from (`fromLocation` of its `onBeforeLoad` event)
 * after its `resolvedLocation`, which only its Transitioner sets, when a client-side load
 * resolves. Hydrating a server-rendered page is not such a load, so until the first navigation
 * has resolved the router has none, and that navigation's event says it comes from nowhere. The
 * TanStack Router integration starts a navigation span only for an event with a `fromLocation`:
 * the first navigation was never traced. The router is left alone; the integration is given a
 * view of it in which such an event comes from the page the server rendered.
 * See docs/decisions/0920-first-navigation-traced.md.
 *
 * `LocationChange`: a router event about a change of location (router-core's
 * `getLocationChangeInfo`).
 */
export interface LocationChange<Location> {
  fromLocation?: Location;
  toLocation: Location;
}

/** Where a navigation comes from: the router's own answer, or else the server-rendered page. */
export function withNavigationOrigin<Location, Change extends LocationChange<Location>>(
  change: Change,
  serverRendered: Location,
): Change {
  return change.fromLocation ? change : { ...change, fromLocation: serverRendered };
}

type Listener = (event: never) => void;

export interface RouterEvents {
  subscribe(eventType: string, listener: Listener): () => void;
}

/**
 * The router as the tracing integration sees it: the same router (everything read through its
 * prototype chain), except that the navigations it is told about always come from somewhere.
 * Only `onBeforeLoad` is changed: it is the event the integration starts navigation spans on.
 *
 * @param serverRendered the location the server rendered: the router's, before hydration.
 */
export function withServerRenderedOrigin<Router extends RouterEvents>(
  router: Router,
  serverRendered: unknown,
): Router {
  const view: Router = Object.create(router);
  view.subscribe = (eventType, listener) =>
    router.subscribe(
      eventType,
      eventType === 'onBeforeLoad'
        ? (event: LocationChange<unknown>) =>
            (listener as (event: LocationChange<unknown>) => void)(
              withNavigationOrigin(event, serverRendered),
            )
        : listener,
    );
  return view;
}
