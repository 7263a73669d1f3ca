/**
 * Tracing, in a chunk of its own (with the SDK's tracing code in `sentry-tracing`,
 * build/client-chunks.ts), loaded after hydration and only for a page view that is traced
 * (decision 0950): the router integration and the segments it drops (aborted or not-found
 * navigations). Only start-browser-monitoring.ts imports it, with `import()`, beside
 * sdk-loader.ts. See docs/decisions/0830-tracing-and-offline-store-after-hydration.md.
 *
 * Spotlight's browser half (development only) lives here too: the SDK's integration needs a
 * module of the `sentry-tracing` chunk (decision 0930), so it loads with this chunk, never with
 * the SDK's own.
 */

import { spotlightBrowserIntegration } from '@sentry/browser';
import type { Envelope, Integration, StreamedSpanJSON } from '@sentry/core';
import { addIntegration, tanstackRouterBrowserTracingIntegration } from '@sentry/react';
import type { PublicConfig } from '#app/site-config';
import { withServerRenderedOrigin } from '#app/start-1.120/navigation-origin';
import {
  isUnwantedRouterSegment,
  NOT_FOUND_SEGMENT_ATTRIBUTE,
  ROUTER_SEGMENT_OPS,
  type RouterMatchesSource,
  type SegmentSummary,
  showsNotFound,
} from './filters';
import type { TracedRouter } from './sdk-loader';

/**
 * Spotlight (SENTRY_SPOTLIGHT, development only): the SDK's own integration, which posts a copy
 * of every envelope to the sidecar. The server puts the sidecar's URL into the public config only
 * when Spotlight is on, never in production. Started with the SDK (`startSentry`'s
 * `beforeHandOver`), before the recorder's reports are replayed, so those are copied too.
 */
export function startSpotlight(config: PublicConfig): void {
  if (config.spotlight)
    addIntegration(spotlightBrowserIntegration({ sidecarUrl: config.spotlight }));
}

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

/**
 * Drops whole segments (a page load or navigation and all its child spans) that turn out to
 * be noise only when they end. With span streaming there is no option for that: `ignoreSpans`
 * is decided when a span starts and `beforeSendSpan` cannot drop. So this integration notes
 * the ids of the unwanted segments as they end (`processSegmentSpan`, the finished segment
 * with its final name and attributes) and takes their spans out of the span envelope before
 * the transport sees it (`beforeEnvelope`). The SDK builds every envelope; we only remove items.
 * Children flushed before their segment ended (segments longer than the SDK's 5 s span flush)
 * cannot be recalled; they arrive without their segment. See docs/decisions/0401-incomplete-segments.md.
 *
 * Given the router, it also marks a page load or navigation segment that ends while the router
 * shows the not-found page (`NOT_FOUND_SEGMENT_ATTRIBUTE`), so `shouldDrop` can drop it: the tracing
 * integration names those after the last route that matched (`/about/nope` is `/about`), so
 * neither the name nor `ignoreSpans` can tell. Checked when the segment ends, because Router
 * 1.120 emits no `onResolved` when it hydrates a page load; a segment that ends while a later
 * navigation runs was cancelled by it, and is dropped as incomplete anyway.
 * See docs/decisions/0500-not-found-segments-by-router-state.md.
 */
const SEGMENT_ID = 'sentry.segment.id';
const OP = 'sentry.op';
/** Segment ids are kept only until their envelope has gone; a page never has many at once. */
const MAX_REMEMBERED = 100;

export function dropSegmentsIntegration(
  shouldDrop: (segment: SegmentSummary) => boolean,
  router?: RouterMatchesSource,
): Integration {
  return {
    name: 'DropSegments',
    setup(client) {
      const dropped = new Set<string>();
      client.on('processSegmentSpan', (span: StreamedSpanJSON) => {
        if (router) markNotFound(span, router);
        if (!shouldDrop(segmentSummaryOf(span))) return;
        dropped.add(span.span_id);
        if (dropped.size > MAX_REMEMBERED) dropped.delete(dropped.values().next().value as string);
      });
      client.on('beforeEnvelope', (envelope) => {
        if (dropped.size > 0) removeSegmentSpans(envelope, dropped);
      });
    },
  };
}

/** Marks the finished segment when it is a router segment and the router shows not-found. */
export function markNotFound(span: StreamedSpanJSON, router: RouterMatchesSource): void {
  const op = plainValue(span.attributes?.[OP]);
  if (typeof op !== 'string' || !ROUTER_SEGMENT_OPS.includes(op)) return;
  if (!showsNotFound(router.state.matches)) return;
  span.attributes = { ...span.attributes, [NOT_FOUND_SEGMENT_ATTRIBUTE]: true };
}

/** A span attribute's value: raw attributes may still be wrapped as `{ value, unit }`. */
function plainValue(attribute: unknown): unknown {
  return typeof attribute === 'object' && attribute !== null && 'value' in attribute
    ? attribute.value
    : attribute;
}

export function segmentSummaryOf(span: StreamedSpanJSON): SegmentSummary {
  const attributes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(span.attributes ?? {})) {
    attributes[key] = plainValue(value);
  }
  const op = attributes[OP];
  return { name: span.name, op: typeof op === 'string' ? op : undefined, attributes };
}

/**
 * Removes, in place, the spans of the given segments from the envelope's span items, and
 * span items left empty. An envelope left with no items is not sent by the transport.
 */
export function removeSegmentSpans(envelope: Envelope, segmentIds: ReadonlySet<string>): void {
  const items = envelope[1] as unknown[];
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index] as [{ type?: string; item_count?: number }, unknown];
    if (item[0]?.type !== 'span') continue;
    const container = item[1] as { items?: Array<{ attributes?: Record<string, unknown> }> };
    if (!Array.isArray(container?.items)) continue;
    const kept = container.items.filter((span) => !segmentIds.has(segmentIdOf(span.attributes)));
    if (kept.length === container.items.length) continue;
    if (kept.length === 0) {
      items.splice(index, 1);
    } else {
      container.items = kept;
      item[0].item_count = kept.length;
    }
  }
}

function segmentIdOf(attributes: Record<string, unknown> | undefined): string {
  const value = plainValue(attributes?.[SEGMENT_ID]);
  return typeof value === 'string' ? value : '';
}

/** Where the router is: the pathname and search of a location. */
export interface RouterLocation {
  pathname: string;
  search: unknown;
}

/** The router as `showsPageLoadRoute` reads it: a structural type, to be unit tested. */
export interface PageLoadRouter {
  state: { location: RouterLocation };
  matchRoutes(
    pathname: string,
    search: unknown,
    options: { preload: boolean; throwOnError: boolean },
  ): ReadonlyArray<{ routeId: string }>;
}

/** The route a page load is named after: the last match, as the integration picks it. */
export function routeIdOf(router: PageLoadRouter, location: RouterLocation): string | undefined {
  const matches = router.matchRoutes(location.pathname, location.search, {
    preload: false,
    throwOnError: false,
  });
  return matches.at(-1)?.routeId;
}

/**
 * Whether the router still shows the route the page was loaded on. Tracing starts after
 * hydration, and the TanStack Router integration names the page load after the route the router
 * shows *then*: after a quick navigation (before this chunk arrived) that would be the next
 * page's name on the first page's load, so `startTracing` leaves that page load out.
 */
export function showsPageLoadRoute(router: PageLoadRouter, pageLoad: RouterLocation): boolean {
  return routeIdOf(router, pageLoad) === routeIdOf(router, router.state.location);
}
