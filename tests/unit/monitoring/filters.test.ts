import { type ErrorEvent, shouldIgnoreSpan } from '@sentry/core';
import { notFound, redirect } from '@tanstack/react-router';
import { describe, expect, it } from 'vitest';
import {
  isDetailedScriptError,
  isExtensionUrl,
  isIncompleteRouterSegment,
  isLocalInboxPage,
  isNoiseEvent,
  isOpaqueScriptError,
  isResizeObserverLoopNotice,
  isRouterControlFlow,
  NOT_FOUND_SEGMENTS,
  type SegmentSummary,
  showsNotFound,
} from '#app/monitoring/filters';

const PAGE = 'http://127.0.0.1:3000/';

function eventWith(
  value: string,
  frames: Array<{ filename?: string; lineno?: number }>,
): ErrorEvent {
  return { type: undefined, exception: { values: [{ value, stacktrace: { frames } }] } };
}

const errorWithStack = Object.assign(new Error('Script error.'), {
  stack: 'Error: Script error.\n    at run (http://127.0.0.1:3000/app.js:3:9)',
});

describe('"Script error.": dropped without detail, reported with a stack or a line', () => {
  it.each([
    [
      'as the SDK builds it from onerror',
      eventWith('Script error.', [{ filename: PAGE, lineno: 0 }]),
      {},
      'dropped',
    ],
    [
      'without the full stop',
      eventWith('Script error', [{ filename: PAGE, lineno: 0 }]),
      {},
      'dropped',
    ],
    [
      'as a plain message',
      { type: undefined, message: 'Script error.' } as ErrorEvent,
      {},
      'dropped',
    ],
    ['with no frames at all', eventWith('Script error.', []), {}, 'dropped'],
    [
      'with a script URL but line 0',
      eventWith('Script error.', [{ filename: 'https://cdn.example.com/x.js', lineno: 0 }]),
      {},
      'dropped',
    ],
    [
      'with a line number (a real location)',
      eventWith('Script error.', [{ filename: PAGE, lineno: 12 }]),
      {},
      'reported',
    ],
    [
      'with a line in a later frame',
      eventWith('Script error.', [
        { filename: PAGE, lineno: 0 },
        { filename: 'https://cdn.example.com/x.js', lineno: 3 },
      ]),
      {},
      'reported',
    ],
    [
      'backed by an Error with a stack',
      eventWith('Script error.', [{ filename: PAGE, lineno: 0 }]),
      { originalException: errorWithStack },
      'reported',
    ],
    [
      'backed by an Error whose stack is only its message',
      eventWith('Script error.', [{ filename: PAGE, lineno: 0 }]),
      {
        originalException: Object.assign(new Error('Script error.'), {
          stack: 'Error: Script error.',
        }),
      },
      'dropped',
    ],
    [
      'another message mentioning it',
      eventWith('Script error in module x', [{ filename: PAGE, lineno: 0 }]),
      {},
      'not a script error',
    ],
    [
      'an ordinary error',
      eventWith('Cannot read properties of undefined', [{ filename: PAGE, lineno: 0 }]),
      {},
      'not a script error',
    ],
  ])('%s: %s', (_name, event, hint, verdict) => {
    const opaque = isOpaqueScriptError(event, hint);
    const detailed = isDetailedScriptError(event, hint);
    expect(opaque && detailed).toBe(false);
    expect(opaque ? 'dropped' : detailed ? 'reported' : 'not a script error').toBe(verdict);
  });
});

describe('isResizeObserverLoopNotice', () => {
  it.each([
    ['ResizeObserver loop limit exceeded', true],
    ['ResizeObserver loop completed with undelivered notifications.', true],
    ['ResizeObserver loop completed with undelivered notifications', true],
    ['ResizeObserver is not defined', false],
    ['Error: ResizeObserver loop limit exceeded in my handler', false],
    ['Script error.', false],
  ])('%s -> %s', (message, expected) => {
    expect(isResizeObserverLoopNotice(message)).toBe(expected);
  });
});

describe('isExtensionUrl', () => {
  it.each([
    ['chrome-extension://abcdef/content.js', true],
    ['moz-extension://0a1b-2c3d/inject.js', true],
    ['safari-extension://com.example.ext/script.js', true],
    ['safari-web-extension://ABCDEF/script.js', true],
    ['chrome://new-tab-page/shared.js', true],
    ['CHROME-EXTENSION://abcdef/content.js', true],
    ['http://127.0.0.1:3000/_build/assets/client.js', false],
    ['https://example.com/chrome-extension://not-at-the-start.js', false],
    ['https://cdn.example.com/chrome.js', false],
    ['', false],
  ])('%s -> %s', (url, expected) => {
    expect(isExtensionUrl(url)).toBe(expected);
  });
});

describe('isRouterControlFlow', () => {
  const wrapped = (cause: unknown) => Object.assign(new Error('wrapped'), { cause });
  it.each([
    ['redirect()', redirect({ to: '/' }), true],
    ['notFound()', notFound(), true],
    ['an error caused by a redirect', wrapped(redirect({ to: '/about' })), true],
    ['an error caused by notFound', wrapped(notFound()), true],
    ['an Error', new Error('redirect'), false],
    ['an error caused by an Error', wrapped(new Error('x')), false],
    ['a Response', new Response(null, { status: 307 }), false],
    ['an object that only looks similar', { redirect: true }, false],
    ['undefined', undefined, false],
    ['a string', 'notFound', false],
  ])('%s -> %s', (_name, value, expected) => {
    expect(isRouterControlFlow(value)).toBe(expected);
  });
});

describe('isNoiseEvent (the beforeSend rules)', () => {
  const ordinary = eventWith('boom', [{ filename: PAGE, lineno: 4 }]);
  it.each([
    [
      'an opaque Script error',
      eventWith('Script error.', [{ filename: PAGE, lineno: 0 }]),
      {},
      true,
    ],
    ['a redirect that escaped', ordinary, { originalException: redirect({ to: '/' }) }, true],
    ['a notFound that escaped', ordinary, { originalException: notFound() }, true],
    ['an ordinary error', ordinary, { originalException: new Error('boom') }, false],
    ['an ordinary error without a hint', ordinary, undefined, false],
  ])('%s -> %s', (_name, event, hint, expected) => {
    expect(isNoiseEvent(event, hint)).toBe(expected);
  });
});

describe('isLocalInboxPage', () => {
  const LOCAL = 'http://localinbox@localhost/1';
  const SENTRY = 'https://key@o1.ingest.us.sentry.io/2';
  it.each([
    [LOCAL, 'http://localhost:3000/errors', true],
    [LOCAL, 'http://localhost:3000/errors/abc?x=1', true],
    [LOCAL, 'https://app.example/Errors/', true],
    [LOCAL, 'http://localhost:3000/errorsx', false],
    [LOCAL, 'http://localhost:3000/about', false],
    [LOCAL, 'http://localhost:3000/sentry-example-page', false],
    [LOCAL, undefined, false],
    [LOCAL, 'not a url', false],
    [SENTRY, 'http://localhost:3000/errors', false],
  ])('%s, %s → %s', (dsn, url, dropped) => {
    expect(isLocalInboxPage(dsn, url)).toBe(dropped);
  });
});

describe('NOT_FOUND_SEGMENTS (ignoreSpans, checked when a span starts)', () => {
  it.each([
    ['a page load of an unknown path', { description: 'Pageload', op: 'pageload' }, true],
    ['a navigation to an unknown path', { description: 'Navigation', op: 'navigation' }, true],
    ['a page load of /', { description: '/', op: 'pageload' }, false],
    ['a page load of a route', { description: '/posts/$postId', op: 'pageload' }, false],
    ['a navigation to a route', { description: '/about', op: 'navigation' }, false],
    ['a span merely named Pageload', { description: 'Pageload', op: 'ui.render' }, false],
    ['a route named like the fallback', { description: '/Pageload', op: 'pageload' }, false],
    ['a fetch span', { description: 'GET /api', op: 'http.client' }, false],
  ])('%s -> %s', (_name, span, expected) => {
    expect(shouldIgnoreSpan(span, NOT_FOUND_SEGMENTS)).toBe(expected);
  });
});

describe('isIncompleteRouterSegment', () => {
  const segment = (name: string, op: string | undefined, reason?: string): SegmentSummary => ({
    name,
    op,
    attributes: reason ? { 'sentry.idle_span_finish_reason': reason } : {},
  });
  it.each([
    ['a page load that went idle', segment('/', 'pageload', 'idleTimeout'), false],
    ['a page load reported loaded', segment('/', 'pageload', 'reportPageLoaded'), false],
    ['a navigation that went idle', segment('/about', 'navigation', 'idleTimeout'), false],
    ['a page load cut off by a navigation', segment('/', 'pageload', 'cancelled'), true],
    ['a navigation still busy after 30 s', segment('/about', 'navigation', 'finalTimeout'), true],
    ['a page load whose children never ended', segment('/', 'pageload', 'heartbeatFailed'), true],
    ['a page load hidden mid-way', segment('/', 'pageload', 'documentHidden'), true],
    ['a page load ended by code', segment('/', 'pageload', 'externalFinish'), true],
    ['a page load without a finish reason', segment('/', 'pageload'), true],
    ['a segment with the fallback name', segment('Pageload', 'pageload', 'idleTimeout'), true],
    [
      'a navigation with the fallback name',
      segment('Navigation', 'navigation', 'idleTimeout'),
      true,
    ],
    ['another kind of segment', segment('checkout', 'ui.action', 'finalTimeout'), false],
    ['a segment without an op', segment('Pageload', undefined), false],
  ])('%s -> %s', (_name, summary, expected) => {
    expect(isIncompleteRouterSegment(summary)).toBe(expected);
  });
});

describe('showsNotFound', () => {
  it.each([
    ['no matches', [], false],
    ['every match loaded', [{ status: 'success' }, { status: 'success' }], false],
    [
      'a loader or beforeLoad threw notFound()',
      [{ status: 'success' }, { status: 'notFound' }],
      true,
    ],
    ['the path matched only a prefix (fuzzy)', [{ status: 'success', globalNotFound: true }], true],
    ['a failed match is an error, not a not-found', [{ status: 'error' }], false],
    ['still pending', [{ status: 'pending' }], false],
  ])('%s: %s', (_name, matches, expected) => {
    expect(showsNotFound(matches)).toBe(expected);
  });
});
