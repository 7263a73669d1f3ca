/**
 * Tests of inbox-api-request, one section per part of the module, in its order: routes, the
 * query's parameters, the issue cursor, the bearer token.
 */
import { describe, expect, it } from 'vitest';
import {
  type ApiRefusal,
  bearerTokenOf,
  type EventsParams,
  eventsParamsOf,
  type InboxApiRoute,
  type IssuesParams,
  inboxApiRouteOf,
  isInboxApiPath,
  issueCursorFor,
  issueCursorOf,
  issuesParamsOf,
} from '#app/server/inbox/api/inbox-api-protocol';

const notFound = expect.objectContaining({ status: 404 });
const bad = (detail: string | RegExp) =>
  expect.objectContaining({ status: 400, detail: expect.stringMatching(detail) });

describe('isInboxApiPath', () => {
  it.each<[string, boolean]>([
    ['/errors/api', true],
    ['/errors/api/', true],
    ['/errors/api/issues', true],
    ['/errors/apis', false],
    ['/errors/0123456789abcdef0123456789abcdef', false],
    ['/errors', false],
    ['/api/errors', false],
  ])('%s: %s', (path, ours) => {
    expect(isInboxApiPath(path)).toBe(ours);
  });
});

describe('inboxApiRouteOf', () => {
  it.each<[string, InboxApiRoute | ApiRefusal]>([
    ['/errors/api/issues', { kind: 'issues' }],
    ['/errors/api/issues/', { kind: 'issues' }],
    ['/errors/api/issues/42', { kind: 'issue', issueId: 42 }],
    ['/errors/api/issues/42/', { kind: 'issue', issueId: 42 }],
    ['/errors/api/issues/42/events', { kind: 'events', issueId: 42 }],
    ['/errors/api/issues/42/events/', { kind: 'events', issueId: 42 }],
    ['/errors/api/issues/9007199254740991', { kind: 'issue', issueId: 9007199254740991 }],
    // Ids that cannot be an issue's: the client's mistake.
    ['/errors/api/issues/0', bad('issue id')],
    ['/errors/api/issues/042', bad('issue id')],
    ['/errors/api/issues/-1', bad('issue id')],
    ['/errors/api/issues/abc/events', bad('issue id')],
    ['/errors/api/issues/9007199254740992', bad('issue id')],
    ['/errors/api/issues/12345678901234567890', bad('issue id')],
    // Paths that name no endpoint.
    ['/errors/api', notFound],
    ['/errors/api/', notFound],
    ['/errors/api/events', notFound],
    ['/errors/api/issues/42/tags', notFound],
    ['/errors/api/issues/42/events/abc', notFound],
  ])('%s', (path, expected) => {
    expect(inboxApiRouteOf(path)).toEqual(expected);
  });
});

describe('issuesParamsOf', () => {
  const params = (query: string) => issuesParamsOf(new URLSearchParams(query));

  it.each<[string, IssuesParams | ApiRefusal]>([
    ['', { sort: 'last-seen', limit: 25 }],
    ['query=&sort=&limit=&cursor=', { sort: 'last-seen', limit: 25 }],
    [
      'query=is%3Aresolved+level%3Aerror&sort=count&limit=100',
      { query: 'is:resolved level:error', sort: 'count', limit: 100 },
    ],
    ['limit=1&unknown=x', { sort: 'last-seen', limit: 1 }],
    // The first of a repeated key, as the list's search params.
    ['sort=first-seen&sort=count', { sort: 'first-seen', limit: 25 }],
    [
      'sort=count&cursor=count:17:1732761600000:42',
      { sort: 'count', limit: 25, after: [17, 1732761600000, 42] },
    ],
    [
      'cursor=last-seen:1732761600000:42',
      { sort: 'last-seen', limit: 25, after: [1732761600000, 42] },
    ],
    ['limit=0', bad(/^limit must be a whole number from 1 to 100$/)],
    ['limit=101', bad(/^limit must be/)],
    ['limit=1.5', bad(/^limit must be/)],
    ['limit=-1', bad(/^limit must be/)],
    ['limit=1000000', bad(/^limit must be/)],
    ['sort=date', bad(/^sort must be one of last-seen, first-seen, count$/)],
    [`query=${'a'.repeat(201)}`, bad(/^query is longer than 200 characters$/)],
    ['cursor=garbage', bad(/^cursor is not one of ours$/)],
    [`cursor=${'9'.repeat(81)}`, bad(/^cursor is not one of ours$/)],
    [
      'sort=count&cursor=last-seen:1732761600000:42',
      bad(/^cursor was made for sort=last-seen, not count$/),
    ],
  ])('%s', (query, expected) => {
    expect(params(query)).toEqual(expected);
  });

  it('takes a query of 200 characters, the list’s own limit', () => {
    expect(params(`query=${'a'.repeat(200)}`)).toEqual({
      query: 'a'.repeat(200),
      sort: 'last-seen',
      limit: 25,
    });
  });
});

describe('eventsParamsOf', () => {
  const id = '0123456789abcdef0123456789abcdef';

  it.each<[string, EventsParams | ApiRefusal]>([
    ['', { limit: 25 }],
    ['limit=5', { limit: 5 }],
    [`cursor=${id}&limit=100`, { limit: 100, before: id }],
    ['limit=101', bad(/^limit must be/)],
    [`cursor=${id.toUpperCase()}`, bad(/^cursor is not one of ours$/)],
    ['cursor=last-seen:1:2', bad(/^cursor is not one of ours$/)],
  ])('%s', (query, expected) => {
    expect(eventsParamsOf(new URLSearchParams(query))).toEqual(expected);
  });
});

describe('issue cursors', () => {
  it.each([
    ['last-seen', [1732761600000, 42], 'last-seen:1732761600000:42'],
    ['first-seen', [0, 1], 'first-seen:0:1'],
    ['count', [17, 1732761600000, 42], 'count:17:1732761600000:42'],
  ] as const)('%s %j reads back as it was written: %s', (sort, values, cursor) => {
    expect(issueCursorFor(sort, values)).toBe(cursor);
    expect(issueCursorOf(cursor)).toEqual({ sort, values });
  });

  it.each([
    '',
    'last-seen',
    'last-seen:1',
    'last-seen:1:2:3',
    'count:1:2',
    'newest:1:2',
    'last-seen:01:2',
    'last-seen:-1:2',
    'last-seen:1.5:2',
    'last-seen:1:',
    'last-seen:9007199254740993:2',
    'last-seen:1e3:2',
  ])('%j is not a cursor', (cursor) => {
    expect(issueCursorOf(cursor)).toBeUndefined();
  });
});

describe('bearerTokenOf', () => {
  it.each<[string | undefined, string | null | undefined]>([
    [undefined, undefined],
    ['Bearer abc-DEF_123.~+/=', 'abc-DEF_123.~+/='],
    ['bearer abc', 'abc'],
    ['Bearer   abc  ', 'abc'],
    // Another scheme: the request is judged by its session.
    ['Basic dXNlcjpwYXNz', undefined],
    ['Bearerabc', undefined],
    // A Bearer header without a token in its form.
    ['Bearer', null],
    ['Bearer ', null],
    ['Bearer a b', null],
    ['Bearer a"b', null],
  ])('%j: %j', (header, token) => {
    expect(bearerTokenOf(header)).toBe(token);
  });
});
