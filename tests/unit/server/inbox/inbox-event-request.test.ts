/**
 * The request an issue's page shows for an event, read from payloads anyone can post.
 */
import { describe, expect, it } from 'vitest';
import { pageUrlOf, requestDetailOf } from '#app/server/inbox/inbox-event';

describe('requestDetailOf', () => {
  it('reads a server event: method, URL, query, route, server function and headers', () => {
    expect(
      requestDetailOf({
        transaction: '/sentry-example-page',
        request: {
          method: 'POST',
          url: 'http://a.test/_server/x',
          query_string: 'createServerFn',
          headers: { 'user-agent': 'Mozilla/5.0', referer: 'http://a.test/sentry-example-page' },
        },
        contexts: {
          server_function: {
            name: 'callFailingExample',
            page: 'http://a.test/sentry-example-page',
          },
        },
      }),
    ).toEqual({
      method: 'POST',
      url: 'http://a.test/_server/x',
      query: 'createServerFn',
      route: '/sentry-example-page',
      serverFunction: { name: 'callFailingExample', page: 'http://a.test/sentry-example-page' },
      headers: [
        ['user-agent', 'Mozilla/5.0'],
        ['referer', 'http://a.test/sentry-example-page'],
      ],
    });
  });

  it.each([
    ['no request at all', {}],
    ['a browser event, whose URL alone is its page', { request: { url: 'http://a.test/' } }],
    ['a request that is not an object', { request: 'GET /' }],
  ])('says nothing for %s', (_case, event) => {
    expect(requestDetailOf(event)).toBeUndefined();
  });

  it('takes Relay’s forms: headers and query as lists of pairs', () => {
    expect(
      requestDetailOf({
        request: {
          method: 'GET',
          headers: [['Accept', 'text/html'], ['bad'], ['X', 7]],
          query_string: [
            ['a', '1'],
            ['b', 'two words'],
          ],
        },
      }),
    ).toMatchObject({ headers: [['Accept', 'text/html']], query: 'a=1&b=two+words' });
  });

  it('bounds what hostile payloads can make it show', () => {
    const headers = Object.fromEntries(
      Array.from({ length: 500 }, (_, i) => [`h${i}`, 'v'.repeat(10_000)]),
    );
    const detail = requestDetailOf({ request: { method: 'M'.repeat(1000), headers } });
    expect(detail?.headers).toHaveLength(50);
    expect(detail?.headers[0]?.[1].length).toBeLessThanOrEqual(2001);
    expect(detail?.method?.length).toBeLessThanOrEqual(101);
  });
});

describe('pageUrlOf', () => {
  it.each([
    [
      'a server function: the page that called it, not /_server/…',
      {
        request: { url: 'http://a.test/_server/x' },
        contexts: { server_function: { name: 'x', page: 'http://a.test/shop' } },
      },
      'http://a.test/shop',
    ],
    [
      'a server function called from no known page',
      { request: { url: 'http://a.test/_server/x' }, contexts: { server_function: { name: 'x' } } },
      'http://a.test/_server/x',
    ],
    ['a page', { request: { url: 'http://a.test/about' } }, 'http://a.test/about'],
    ['no request', {}, ''],
  ])('%s', (_case, event, page) => {
    expect(pageUrlOf(event)).toBe(page);
  });
});
