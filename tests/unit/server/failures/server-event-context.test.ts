/**
 * What a server event says about its request: Sentry's request interface with an allow-list
 * of headers, the route as the transaction, a server function's name and calling page.
 */
import { describe, expect, it } from 'vitest';
import {
  eventRequestFacts,
  type FailedRequest,
  sameOriginPage,
  serverFunctionName,
} from '#app/server/failures/server-event-context.server';

const FN_ID = 'app_server_example_functions_ts--callFailingExample_createServerFn_handler';

function failed(overrides: Partial<FailedRequest> = {}): FailedRequest {
  return {
    method: 'GET',
    url: 'https://shop.test/sentry-example-page?example-failure=render',
    headers: [],
    route: '/sentry-example-page/',
    serverFunction: false,
    ...overrides,
  };
}

describe('eventRequestFacts', () => {
  it('gives the page URL without its query, the query string apart, and the route as the transaction', () => {
    expect(eventRequestFacts(failed())).toEqual({
      request: {
        method: 'GET',
        url: 'https://shop.test/sentry-example-page',
        query_string: 'example-failure=render',
        headers: {},
      },
      transaction: '/sentry-example-page/',
    });
  });

  it.each([
    ['cookie', 'sid=s3cret'],
    ['authorization', 'Bearer s3cret'],
    ['proxy-authorization', 'Basic s3cret'],
    ['x-api-key', 's3cret'],
    ['x-amz-security-token', 's3cret'],
    ['x-csrf-token', 's3cret'],
    ['x-forwarded-for', '203.0.113.9'],
  ])('leaves out %s: only allow-listed headers are sent', (name, value) => {
    const { request } = eventRequestFacts(
      failed({
        headers: [
          [name, value],
          ['User-Agent', 'Mozilla/5.0'],
        ],
      }),
    );
    expect(request.headers).toEqual({ 'user-agent': 'Mozilla/5.0' });
    expect(JSON.stringify(request)).not.toContain(value);
  });

  it.each([
    ['__root__', 'https://shop.test/about?x=1', '/about'],
    ['/errors/issues/$issueId', 'https://shop.test/errors/issues/7', '/errors/issues/$issueId'],
    [
      '/sentry-example-page/ssr-error',
      'https://shop.test/sentry-example-page/ssr-error',
      '/sentry-example-page/ssr-error',
    ],
  ])('a page failure of route %s on %s is the transaction %s', (route, url, transaction) => {
    expect(eventRequestFacts(failed({ route, url })).transaction).toBe(transaction);
  });

  it('names a server function, its calling page (same origin) and that page as the transaction', () => {
    const facts = eventRequestFacts(
      failed({
        method: 'POST',
        url: `https://shop.test/_server/${FN_ID}?createServerFn`,
        route: FN_ID,
        serverFunction: true,
        headers: [['referer', 'https://shop.test/sentry-example-page?tab=2']],
      }),
    );
    expect(facts.serverFunction).toEqual({
      name: 'callFailingExample',
      id: FN_ID,
      page: 'https://shop.test/sentry-example-page?tab=2',
    });
    expect(facts.transaction).toBe('/sentry-example-page');
    expect(facts.request).toMatchObject({
      method: 'POST',
      url: `https://shop.test/_server/${FN_ID}`,
      headers: { referer: 'https://shop.test/sentry-example-page?tab=2' },
    });
  });

  it.each([
    [
      'another site called it',
      [['referer', 'https://evil.test/page']],
      `https://shop.test/_server/${FN_ID}`,
      'callFailingExample',
    ],
    ['no Referer', [], `https://shop.test/_server/${FN_ID}`, 'callFailingExample'],
    ['a loader called it during SSR', [], 'https://shop.test/account', '/account'],
  ] as Array<[string, Array<[string, string]>, string, string]>)(
    'a server function when %s: no calling page, the transaction is %s',
    (_case, headers, url, transaction) => {
      const facts = eventRequestFacts(
        failed({ method: 'POST', url, route: FN_ID, serverFunction: true, headers }),
      );
      expect(facts.serverFunction?.page).toBeUndefined();
      expect(facts.request.headers).not.toHaveProperty('referer');
      expect(facts.transaction).toBe(transaction);
      expect(facts.transaction).not.toMatch(/^\/_server\//);
    },
  );
});

describe('serverFunctionName', () => {
  it.each([
    [FN_ID, 'callFailingExample'],
    [
      'app_server_inbox_inbox_functions_ts--listInboxIssues_createServerFn_handler',
      'listInboxIssues',
    ],
    ['odd-id', 'odd-id'],
  ])('%s is %s', (id, name) => {
    expect(serverFunctionName(id)).toBe(name);
  });
});

describe('sameOriginPage', () => {
  const request = new URL('https://shop.test/_server/x');
  it.each([
    ['https://shop.test/a?b=1#c', 'https://shop.test/a?b=1'],
    ['http://shop.test/a', undefined],
    ['https://shop.test:8443/a', undefined],
    ['https://other.test/a', undefined],
    ['not a url', undefined],
  ])('%s → %s', (referer, page) => {
    expect(sameOriginPage(referer, request)).toBe(page);
  });
});
