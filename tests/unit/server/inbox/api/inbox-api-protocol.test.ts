/**
 * Tests of inbox-api-protocol, one section per part of the module, in its order: routes, the
 * query's parameters, the issue cursor, the bearer token; then the answers: the fields a script
 * reads, in Sentry's names and types, the stats' buckets, and the paging links.
 */
import { describe, expect, it } from 'vitest';
import {
  type ApiRefusal,
  apiEventOf,
  apiIssueDetailOf,
  apiIssueOf,
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
  linkHeaderOf,
  nextPathOf,
} from '#app/server/inbox/api/inbox-api-protocol';
import type { IssueDetail, IssueSummary } from '#app/server/inbox/store/inbox-reads.server';

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

const HOUR = 3_600_000;
// 2026-11-28 10:30 UTC: the last hourly bucket starts at 10:00, the last daily one at 00:00.
const NOW = Date.UTC(2026, 10, 28, 10, 30);
const path = (to: string) => to;
const underPublicUrl = (to: string) => new URL(to, 'https://errors.example.com').href;

const summary: IssueSummary = {
  id: 42,
  title: 'TypeError: x is undefined',
  culprit: 'app/routes/index.tsx in onClick',
  level: 'error',
  status: 'unresolved',
  regressed: true,
  firstSeen: Date.UTC(2026, 10, 27, 9, 0, 0, 5),
  lastSeen: Date.UTC(2026, 10, 28, 10, 29),
  count: 1234,
  hourly: [...Array<number>(23).fill(0), 7],
  environments: ['production'],
  lastRelease: 'web@1.4.2',
  users: 3,
  usersPastCap: false,
  triage: { status: 'unresolved' },
};

describe('apiIssueOf', () => {
  it('names the fields as Sentry does, with its types: ids and counts as strings, ISO times', () => {
    expect(apiIssueOf(summary, NOW, path)).toEqual({
      id: '42',
      title: 'TypeError: x is undefined',
      culprit: 'app/routes/index.tsx in onClick',
      level: 'error',
      status: 'unresolved',
      substatus: 'regressed',
      statusDetails: {},
      count: '1234',
      userCount: 3,
      firstSeen: '2026-11-27T09:00:00.005Z',
      lastSeen: '2026-11-28T10:29:00.000Z',
      permalink: '/errors/issues/42',
      stats: { '24h': expect.any(Array) },
    });
  });

  it('counts the last 24 hours in buckets of an hour, the last one holding now', () => {
    const stats = apiIssueOf(summary, NOW, path).stats['24h'];
    expect(stats).toHaveLength(24);
    expect(stats[23]).toEqual([Date.UTC(2026, 10, 28, 10) / 1000, 7]);
    expect(stats[0]).toEqual([(Date.UTC(2026, 10, 28, 10) - 23 * HOUR) / 1000, 0]);
  });

  it('links under PUBLIC_URL when there is one; an issue not regressed has no substatus', () => {
    const issue = apiIssueOf({ ...summary, regressed: false }, NOW, underPublicUrl);
    expect(issue.permalink).toBe('https://errors.example.com/errors/issues/42');
    expect(issue.substatus).toBeNull();
  });

  it.each([
    [
      'a mute for a time',
      { status: 'ignored', mute: { kind: 'time', target: NOW + HOUR } },
      'ignored',
      { ignoreUntil: '2026-11-28T11:30:00.000Z' },
    ],
    [
      'a mute for more events',
      { status: 'ignored', mute: { kind: 'events', target: 1334, count: 100 } },
      'ignored',
      { ignoreCount: 100 },
    ],
    [
      'a mute for more users',
      { status: 'ignored', mute: { kind: 'users', target: 13, count: 10 } },
      'ignored',
      { ignoreUserCount: 10 },
    ],
    ['ignored for ever', { status: 'ignored' }, 'ignored', {}],
    [
      'resolved in the next release',
      { status: 'resolved', inNextRelease: { after: 'web@1.4.2', at: NOW } },
      'resolved',
      { inNextRelease: true },
    ],
    ['resolved', { status: 'resolved' }, 'resolved', {}],
    [
      'a time mute that has passed (unresolved now)',
      { status: 'ignored', mute: { kind: 'time', target: NOW - HOUR } },
      'unresolved',
      {},
    ],
  ] as const)('says %s in statusDetails as Sentry does', (_, triage, status, details) => {
    const issue = apiIssueOf({ ...summary, status, triage }, NOW, path);
    expect(issue.statusDetails).toEqual(details);
  });
});

describe('apiIssueDetailOf', () => {
  const detail: IssueDetail = {
    ...summary,
    firstRelease: '',
    daily: [...Array<number>(29).fill(0), 1234],
    tags: [
      {
        key: 'browser',
        total: 5,
        values: [
          { value: 'Chrome 156', count: 4 },
          { value: 'Firefox 140', count: 1 },
        ],
      },
    ],
    releases: ['web@1.4.2'],
    storedEvents: 20,
  };

  it('adds 30 days of daily counts, the releases, the tags in Sentry’s shape, the stored events', () => {
    const issue = apiIssueDetailOf(detail, NOW, path);
    expect(issue.stats['30d']).toHaveLength(30);
    expect(issue.stats['30d'][29]).toEqual([Date.UTC(2026, 10, 28) / 1000, 1234]);
    expect(issue.stats['24h']).toHaveLength(24);
    expect(issue.firstRelease).toBeNull();
    expect(issue.lastRelease).toEqual({ version: 'web@1.4.2' });
    expect(issue.tags).toEqual([
      {
        key: 'browser',
        totalValues: 5,
        topValues: [
          { value: 'Chrome 156', count: 4 },
          { value: 'Firefox 140', count: 1 },
        ],
      },
    ]);
    expect(issue.storedEvents).toBe(20);
    expect(issue.id).toBe('42');
  });
});

describe('apiEventOf', () => {
  const listed = {
    eventId: '0123456789abcdef0123456789abcdef',
    receivedAt: Date.UTC(2026, 10, 28, 10, 0, 1),
    environment: 'production',
    release: 'web@1.4.2',
    url: 'https://app.example.com/',
  };

  it('dates the event by its own timestamp and its receipt, and carries its payload', () => {
    const payload = {
      event_id: listed.eventId,
      timestamp: Date.UTC(2026, 10, 28, 10) / 1000 + 0.25,
    };
    expect(apiEventOf(42, listed, payload, path)).toEqual({
      id: listed.eventId,
      eventID: listed.eventId,
      groupID: '42',
      dateCreated: '2026-11-28T10:00:00.250Z',
      dateReceived: '2026-11-28T10:00:01.000Z',
      environment: 'production',
      release: 'web@1.4.2',
      permalink: `/errors/issues/42?event=${listed.eventId}`,
      payload,
    });
  });

  it.each([
    ['no payload', undefined],
    ['no timestamp', {}],
    ['a timestamp that is not a number', { timestamp: '2026-11-28T09:00:00Z' }],
  ])('with %s, it is dated by its receipt', (_, payload) => {
    const event = apiEventOf(42, listed, payload, path);
    expect(event.dateCreated).toBe('2026-11-28T10:00:01.000Z');
    expect(event.payload).toEqual(payload ?? null);
  });
});

describe('paging links', () => {
  it('keeps the request’s parameters and puts the cursor in place of its own', () => {
    const search = new URLSearchParams('query=is:resolved browser:"Chrome 156"&limit=2&cursor=old');
    const next = nextPathOf('/errors/api/issues', search, 'last-seen:1732761600000:42');
    const url = new URL(next, 'http://x');
    expect(url.pathname).toBe('/errors/api/issues');
    expect(url.searchParams.get('query')).toBe('is:resolved browser:"Chrome 156"');
    expect(url.searchParams.get('limit')).toBe('2');
    expect(url.searchParams.getAll('cursor')).toEqual(['last-seen:1732761600000:42']);
  });

  it('says it as Sentry’s Link header does', () => {
    expect(linkHeaderOf('/errors/api/issues?cursor=count:1:2:3', 'count:1:2:3')).toBe(
      '</errors/api/issues?cursor=count:1:2:3>; rel="next"; results="true"; cursor="count:1:2:3"',
    );
  });
});
