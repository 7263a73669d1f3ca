/**
 * Tracing, in a chunk of its own (with the SDK's tracing code in `sentry-tracing`,
 * build/client-chunks.ts), loaded after hydration and only for a page view that is traced
 * (decision 0950). Only start-browser-monitoring.ts imports it, with `import()`, beside
 * sdk-loader.ts. See docs/decisions/0830-tracing-and-offline-store-after-hydration.md.
 */
import { addIntegration, tanstackRouterBrowserTracingIntegration } from '@sentry/react';
import { withServerRenderedOrigin } from '#app/start-1.120/navigation-origin';
import type { TracedRouter } from './browser-options';
import { dropSegmentsIntegration } from './drop-segments';
import { isUnwantedRouterSegment } from './filters';
import { type PageLoadRouter, type RouterLocation, showsPageLoadRoute } from './page-load-route';

/**
 * Starts tracing in the running client. Added late, the TanStack Router integration still starts
 * the page-load span at the navigation's start (`browserPerformanceTimeOrigin()`), named after
 * the route the router shows; the sampling and `ignoreSpans` were given at init. If the
 * visitor has already moved to another route, that name would be wrong: no page-load span then.
 * Navigations are traced from the first one on (navigation-origin.ts).
 *
 * @param pageLoad the router's location when monitoring started, before hydration.
 */
export function startTracing(
  router: TracedRouter & PageLoadRouter,
  pageLoad: RouterLocation,
): void {
  // First, so that it is listening before the page-load span can start.
  addIntegration(dropSegmentsIntegration(isUnwantedRouterSegment, router));
  addIntegration(
    tanstackRouterBrowserTracingIntegration(withServerRenderedOrigin(router, pageLoad), {
      instrumentPageLoad: showsPageLoadRoute(router, pageLoad),
    }),
  );
}
