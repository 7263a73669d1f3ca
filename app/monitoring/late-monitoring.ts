/**
 * The browser monitoring that loads after hydration, in a chunk of its own (with the SDK's
 * tracing and offline code in `sentry-tracing`, build/client-chunks.ts): traces and the offline
 * store. Only `start-browser-monitoring.ts` imports it, with `import()`; errors are reported
 * before it arrives. See docs/decisions/0830-tracing-and-offline-store-after-hydration.md.
 */
import {
  addIntegration,
  makeBrowserOfflineTransport,
  makeFetchTransport,
  tanstackRouterBrowserTracingIntegration,
} from '@sentry/react';
import type { BrowserTransportFactory, TracedRouter } from './browser-options';
import { dropSegmentsIntegration } from './drop-segments';
import { isUnwantedRouterSegment } from './filters';
import { withServerRenderedOrigin } from './navigation-origin';
import { type PageLoadRouter, type RouterLocation, showsPageLoadRoute } from './page-load-route';

/**
 * Envelopes that cannot be sent (offline, network error) wait in IndexedDB and are retried with
 * back-off, when the browser comes back online, and at the next page load. The options (the
 * queue of 64, `flushAtStartup`) are the ones given at init (browser-options.ts).
 */
export const offlineTransport: BrowserTransportFactory =
  makeBrowserOfflineTransport(makeFetchTransport);

/**
 * Starts tracing in the running client. Added late, the TanStack Router integration still starts
 * the page-load span at the navigation's start (`browserPerformanceTimeOrigin()`), named after
 * the route the router shows; `tracesSampleRate` and `ignoreSpans` were given at init. If the
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
