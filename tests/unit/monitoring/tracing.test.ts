import type { Envelope, StreamedSpanJSON } from '@sentry/core';
import { describe, expect, it } from 'vitest';
import { isNotFoundRouterSegment, isUnwantedRouterSegment } from '#app/monitoring/filters';
import {
  markNotFound,
  type PageLoadRouter,
  type RouterLocation,
  removeSegmentSpans,
  routeIdOf,
  segmentSummaryOf,
  showsPageLoadRoute,
} from '#app/monitoring/tracing';

const span = (id: string, segmentId: string) => ({
  span_id: id,
  name: id,
  attributes: { 'sentry.segment.id': { type: 'string', value: segmentId } },
});

const spanItem = (...spans: ReturnType<typeof span>[]) => [
  {
    type: 'span',
    item_count: spans.length,
    content_type: 'application/vnd.sentry.items.span.v2+json',
  },
  { version: 2, items: spans },
];

const envelopeOf = (...items: unknown[]) => [{ sent_at: 'now' }, items] as unknown as Envelope;

describe('removeSegmentSpans', () => {
  it('removes the spans of a dropped segment and keeps the others', () => {
    const envelope = envelopeOf(
      spanItem(span('a', 'seg1'), span('b', 'seg2'), span('seg1', 'seg1')),
    );
    removeSegmentSpans(envelope, new Set(['seg1']));
    const [header, container] = envelope[1][0] as unknown as [
      { item_count: number },
      { items: Array<{ span_id: string }> },
    ];
    expect(container.items.map((s) => s.span_id)).toEqual(['b']);
    expect(header.item_count).toBe(1);
  });

  it('removes a span item left empty, so the transport sends nothing', () => {
    const envelope = envelopeOf(spanItem(span('a', 'seg1'), span('seg1', 'seg1')));
    removeSegmentSpans(envelope, new Set(['seg1']));
    expect(envelope[1]).toEqual([]);
  });

  it.each([
    ['an event item', [{ type: 'event' }, { message: 'x' }]],
    ['a session item', [{ type: 'session' }, { sid: '1' }]],
    ['spans of other segments', spanItem(span('a', 'seg2'))],
  ])('leaves %s alone', (_name, item) => {
    const envelope = envelopeOf(item);
    const before = JSON.stringify(envelope);
    removeSegmentSpans(envelope, new Set(['seg1']));
    expect(JSON.stringify(envelope)).toBe(before);
  });
});

describe('segmentSummaryOf', () => {
  it('reads name, op and plain attribute values of a finished segment', () => {
    const segment = {
      name: '/',
      span_id: 's',
      trace_id: 't',
      start_timestamp: 1,
      status: 'ok',
      is_segment: true,
      attributes: {
        'sentry.op': 'pageload',
        'sentry.idle_span_finish_reason': 'idleTimeout',
        'browser.web_vital.ttfb.value': { value: 12, unit: 'millisecond' },
      },
    } as unknown as StreamedSpanJSON;
    expect(segmentSummaryOf(segment)).toEqual({
      name: '/',
      op: 'pageload',
      attributes: {
        'sentry.op': 'pageload',
        'sentry.idle_span_finish_reason': 'idleTimeout',
        'browser.web_vital.ttfb.value': 12,
      },
    });
  });
});

describe('markNotFound', () => {
  const segment = (op: string) =>
    ({
      name: '/about',
      span_id: 's',
      is_segment: true,
      attributes: { 'sentry.op': op, 'sentry.idle_span_finish_reason': 'idleTimeout' },
    }) as unknown as StreamedSpanJSON;
  const router = (matches: Array<{ status: string; globalNotFound?: boolean }>) => ({
    state: { matches },
  });

  it.each([
    ['a page load ending on the not-found page', 'pageload', [{ status: 'notFound' }], true],
    [
      'a navigation ending on a fuzzy not-found',
      'navigation',
      [{ status: 'success', globalNotFound: true }],
      true,
    ],
    ['a page load of a found page', 'pageload', [{ status: 'success' }], false],
    ['a span that is not a router segment', 'http.client', [{ status: 'notFound' }], false],
  ])('%s: dropped %s', (_name, op, matches, dropped) => {
    const span = segment(op);
    markNotFound(span, router(matches));
    const summary = segmentSummaryOf(span);
    expect(isNotFoundRouterSegment(summary)).toBe(dropped);
    expect(isUnwantedRouterSegment(summary)).toBe(dropped);
  });
});

/** Matches as Router 1.120 does for these paths: the root, then the route (if any). */
const ROUTES: Record<string, string[]> = {
  '/': ['__root__', '/'],
  '/about': ['__root__', '/about'],
  '/about/': ['__root__', '/about'],
  '/errors/abc': ['__root__', '/errors/$eventId'],
  '/errors/def': ['__root__', '/errors/$eventId'],
  '/nowhere': ['__root__'],
};

const at = (pathname: string): RouterLocation => ({ pathname, search: {} });

function routerAt(pathname: string): PageLoadRouter {
  return {
    state: { location: at(pathname) },
    matchRoutes: (path) => (ROUTES[path] ?? []).map((routeId) => ({ routeId })),
  };
}

describe('routeIdOf', () => {
  it.each([
    ['/about', '/about'],
    ['/errors/abc', '/errors/$eventId'],
    ['/nowhere', '__root__'],
  ])('%s is named %s', (path, routeId) => {
    expect(routeIdOf(routerAt('/'), at(path))).toBe(routeId);
  });
});

describe('showsPageLoadRoute', () => {
  it.each([
    ['the same page', '/about', '/about', true],
    ['the URL normalised to the same route', '/about/', '/about', true],
    ['another page of the same route', '/errors/abc', '/errors/def', true],
    ['a page of another route', '/', '/about', false],
    ['the not-found page, then a route', '/nowhere', '/', false],
  ])('%s: loaded %s, now %s -> %s', (_case, loaded, now, shows) => {
    expect(showsPageLoadRoute(routerAt(now), at(loaded))).toBe(shows);
  });
});
