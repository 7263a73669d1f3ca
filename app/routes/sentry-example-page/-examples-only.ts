import { notFound } from '@tanstack/react-router';
import type { RouterContext } from '#app/site-config';

/**
 * The example pages exist in development, and in production only with ENABLE_EXAMPLE_ROUTES;
 * otherwise each answers the site's 404 page. Called from each page's loader, not from a shared
 * `beforeLoad`: router-core marks every ancestor of a route whose beforeLoad throws `notFound()`
 * as not found, up to the root, and the root's not-found page then replaces the whole document
 * (no head, styles or navigation). A loader's `notFound()` stays on its own route. (The `-`
 * prefix keeps this file out of the route tree.)
 */
export function examplePagesOnly({ context }: { context: RouterContext }): void {
  if (!context.site?.links.examplePage) throw notFound();
}
