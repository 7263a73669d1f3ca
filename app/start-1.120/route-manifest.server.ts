/**
 * The route manifest Start 1.120 serialises into every page (`__TSR_SSR__.dehydrated`), without
 * the routes that have nothing in it. Start lists every route, most with neither preloads nor
 * assets (their chunks load with `import()`), and each page spends its time escaping them: a
 * route missing from the manifest is read as one without preloads or assets, on the server
 * (`HeadContent`, `Scripts`) and in the browser alike. See docs/decisions/0850-*.md.
 */

interface RouteEntry {
  preloads?: readonly unknown[];
  assets?: readonly unknown[];
}

export function withoutEmptyRoutes<M extends { routes: Record<string, RouteEntry> }>(
  manifest: M,
): M {
  const routes = Object.fromEntries(
    Object.entries(manifest.routes).filter(
      ([, route]) => (route.preloads?.length ?? 0) > 0 || (route.assets?.length ?? 0) > 0,
    ),
  );
  return { ...manifest, routes };
}
