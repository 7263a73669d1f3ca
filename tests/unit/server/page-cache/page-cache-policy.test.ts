import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  carriesPerRequestQuery,
  inlineScriptHashes,
  isFresh,
  mayKeep,
  noneMatch,
  pageKey,
  type RenderOutcome,
  withoutNonce,
} from '#app/server/page-cache/page-cache-policy';

const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe('pageKey', () => {
  it.each([
    ['/about', '', [], 'browser /about'],
    // A query the route does not declare neither busts nor grows the cache.
    ['/about', 'utm_source=x&cache-buster=123', [], 'browser /about'],
    ['/about', 'utm_source=x', ['lang'], 'browser /about'],
    // Declared keys only, in one order whatever the request's.
    ['/docs', 'b=2&utm=1&a=1', ['a', 'b'], 'browser /docs?a=1&b=2'],
    ['/docs', 'a=1&b=2', ['b', 'a'], 'browser /docs?a=1&b=2'],
    ['/docs', 'a=1&a=2', ['a'], 'browser /docs?a=1&a=2'],
  ])('%s?%s declaring %j is %s', (path, search, declared, key) => {
    expect(pageKey('browser', path, search, declared)).toBe(key);
  });

  it('keeps crawlers’ pages apart from browsers’', () => {
    expect(pageKey('crawler', '/about', '')).not.toBe(pageKey('browser', '/about', ''));
  });
});

describe('carriesPerRequestQuery', () => {
  it.each([
    ['example-failure=root-before-load', ['example-failure'], true],
    ['a=1&example-failure=', ['example-failure'], true],
    ['example-failures=1', ['example-failure'], false],
    ['', ['example-failure'], false],
    ['example-failure=1', [], false],
  ])('%j with %j: %s', (search, keys, carries) => {
    expect(carriesPerRequestQuery(search, keys)).toBe(carries);
  });
});

describe('mayKeep', () => {
  const kept: RenderOutcome = {
    method: 'GET',
    status: 200,
    kind: 'page',
    failedOrRedirected: false,
    clientGone: false,
    setsCookie: false,
    perRequest: false,
  };
  it.each<[string, Partial<RenderOutcome>, boolean]>([
    ['a whole opted-in page', {}, true],
    ['the not-found page', { kind: 'not-found', status: 404 }, true],
    ['a page that did not opt in', { kind: undefined }, false],
    ['a failed page', { failedOrRedirected: true, status: 500 }, false],
    ['a failure inside a boundary, answered 200', { failedOrRedirected: true }, false],
    ['a redirect', { failedOrRedirected: true, status: 307 }, false],
    ['a page cut short', { clientGone: true }, false],
    ['a page that sets a cookie', { setsCookie: true }, false],
    ['a page asked with a per-request query', { perRequest: true }, false],
    ['a HEAD', { method: 'HEAD' }, false],
    ['an opted-in page answered 404', { status: 404 }, false],
    ['a not-found page answered 200', { kind: 'not-found' }, false],
  ])('%s: %s', (_, outcome, keep) => {
    expect(mayKeep({ ...kept, ...outcome })).toBe(keep);
  });
});

describe('isFresh', () => {
  it.each([
    [1_000, undefined, 1_000_000, true],
    [1_000, 5_000, 5_999, true],
    [1_000, 5_000, 6_000, false],
  ])('stored at %d, max age %s, at %d: %s', (storedAt, maxAgeMs, now, fresh) => {
    expect(isFresh(storedAt, maxAgeMs, now)).toBe(fresh);
  });
});

describe('inlineScriptHashes', () => {
  it.each<[string, string, string[]]>([
    ['one inline script', '<script>a()</script>', [sha('a()')]],
    [
      'with attributes, and a JSON one',
      '<script id="r">b()</script><script type="application/json">{"a":1}</script>',
      [sha('b()'), sha('{"a":1}')],
    ],
    ['a file: allowed by its origin', '<script type="module" src="/x.js"></script>', []],
    ['an empty one', '<script></script>', [sha('')]],
    ['repeated: once', '<script>c()</script><p>x</p><script>c()</script>', [sha('c()')]],
    [
      'as the browser reads line breaks',
      '<script>d()\r\ne()\rf()</script>',
      [sha('d()\ne()\nf()')],
    ],
    ['not a script tag', '<scripts>x</scripts><p>&lt;script&gt;</p>', []],
  ])('%s', (_, html, hashes) => {
    expect(inlineScriptHashes(html)).toEqual(hashes);
  });
});

describe('withoutNonce', () => {
  it('gives back the page as rendered without the nonce', () => {
    const rendered =
      '<script nonce="abc+/=="> x()</script><script nonce="abc+/==" id="r">y()</script>';
    expect(withoutNonce(rendered, 'abc+/==')).toBe(
      '<script> x()</script><script id="r">y()</script>',
    );
  });
});

describe('noneMatch', () => {
  it.each<[string | undefined, boolean]>([
    [undefined, false],
    ['"b.p.br"', true],
    ['W/"b.p.br"', true],
    ['"x", "b.p.br"', true],
    ['*', true],
    ['"b.p"', false],
    ['"b.p.gz"', false],
  ])('If-None-Match %j for "b.p.br": %s', (header, matches) => {
    expect(noneMatch(header, '"b.p.br"')).toBe(matches);
  });
});
