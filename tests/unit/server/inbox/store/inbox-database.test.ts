import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type InboxDatabase,
  openInboxDatabase,
  type PreparedEnvelope,
  type PreparedEvent,
} from '#app/server/inbox/store/inbox-database.server';
import { MIGRATIONS } from '#app/server/inbox/store/migrations';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 26, 12, 30);
let counter = 0;

function event(overrides: Partial<PreparedEvent> = {}): PreparedEnvelope {
  counter++;
  return {
    event: {
      eventId: counter.toString(16).padStart(32, '0'),
      timestamp: NOW,
      level: 'error',
      platform: 'javascript',
      environment: 'production',
      release: 'app@1.0.0',
      url: 'http://localhost:3000/sentry-example-page',
      title: 'TypeError: x is undefined',
      culprit: 'app/routes/index.tsx in onClick',
      hashes: ['app-hash-1', 'system-hash-1'],
      groupingConfig: 'newstyle:2023-01-11',
      tags: [
        ['browser', 'Chrome 156'],
        ['os', 'Linux'],
      ],
      payload: '{}',
      ...overrides,
    },
    sessions: [],
    counts: { event: 1 },
  };
}

const opened: InboxDatabase[] = [];
function open(maxEvents = 1000): { db: InboxDatabase; path: string } {
  const path = join(mkdtempSync(join(tmpdir(), 'inbox-db-')), 'inbox.sqlite');
  const db = openInboxDatabase(path, { maxEvents });
  opened.push(db);
  return { db, path };
}
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

const list = (db: InboxDatabase, extra: Partial<Parameters<InboxDatabase['listIssues']>[0]> = {}) =>
  db.listIssues({ sort: 'last-seen', page: 1, pageSize: 50, now: NOW, ...extra });

describe('grouping into issues', () => {
  it('counts ten events of one bug as one issue with count 10, first and last seen, hourly counts', () => {
    const { db } = open();
    for (let i = 0; i < 10; i++) db.ingest([event({ timestamp: NOW - i * HOUR })], NOW);
    const { issues, total } = list(db);
    expect(total).toBe(1);
    expect(issues[0]).toMatchObject({
      count: 10,
      firstSeen: NOW - 9 * HOUR,
      lastSeen: NOW,
      status: 'unresolved',
    });
    expect(issues[0]?.hourly.slice(-10)).toEqual(Array(10).fill(1));
    expect(issues[0]?.hourly.reduce((a, b) => a + b)).toBe(10);
  });

  it('joins the issue that owns any of the event’s hashes, and the issue then owns them all', () => {
    const { db } = open();
    db.ingest([event({ hashes: ['a', 'b'] })], NOW);
    db.ingest([event({ hashes: ['c', 'b'] })], NOW);
    db.ingest([event({ hashes: ['c'] })], NOW);
    db.ingest([event({ hashes: ['d'] })], NOW);
    expect(
      list(db)
        .issues.map((issue) => issue.count)
        .sort(),
    ).toEqual([1, 3]);
  });

  it('stores an event id once: a repeat is a duplicate, not a second event', () => {
    const { db } = open();
    const first = event();
    expect(db.ingest([first], NOW)).toEqual([
      { kind: 'stored', issueId: 1, isNewIssue: true, regressed: false },
    ]);
    expect(db.ingest([first], NOW)).toEqual([{ kind: 'duplicate' }]);
    expect(list(db).issues[0]?.count).toBe(1);
  });
});

describe('workflow', () => {
  it('reopens a resolved issue as regressed when it is seen again', () => {
    const { db } = open();
    db.ingest([event()], NOW);
    expect(db.setStatus(1, 'resolved')).toBe(true);
    expect(list(db).issues[0]).toMatchObject({ status: 'resolved', regressed: false });
    expect(db.ingest([event()], NOW)).toEqual([
      { kind: 'stored', issueId: 1, isNewIssue: false, regressed: true },
    ]);
    expect(list(db).issues[0]).toMatchObject({ status: 'unresolved', regressed: true, count: 2 });
  });

  it('hides ignored issues by default but still counts them and their events', () => {
    const { db } = open();
    db.ingest([event({ hashes: ['x'] })], NOW);
    db.ingest([event({ hashes: ['y'], title: 'Other' })], NOW);
    db.setStatus(2, 'ignored');
    db.ingest([event({ hashes: ['y'], title: 'Other' })], NOW);
    const shown = list(db);
    expect(shown.issues.map((issue) => issue.id)).toEqual([1]);
    expect(shown.hiddenIgnored).toBe(1);
    expect(list(db, { status: 'ignored' }).issues[0]).toMatchObject({ id: 2, count: 2 });
    expect(db.setStatus(99, 'resolved')).toBe(false);
  });
});

describe('the list', () => {
  it('filters by environment and release, searches title, culprit and URL, and sorts', () => {
    const { db } = open();
    db.ingest(
      [
        event({
          hashes: ['a'],
          title: 'Alpha',
          environment: 'development',
          timestamp: NOW - 2 * HOUR,
        }),
      ],
      NOW,
    );
    db.ingest(
      [
        event({
          hashes: ['b'],
          title: 'Beta',
          release: 'app@2.0.0',
          url: 'http://x/checkout',
          tags: [['url', '/checkout']],
        }),
      ],
      NOW,
    );
    db.ingest([event({ hashes: ['b'], title: 'Beta' })], NOW);
    expect(list(db, { environment: 'development' }).issues.map((i) => i.title)).toEqual(['Alpha']);
    expect(list(db, { release: 'app@2.0.0' }).issues.map((i) => i.title)).toEqual(['Beta']);
    expect(list(db, { search: 'checkout' }).issues.map((i) => i.title)).toEqual(['Beta']);
    expect(list(db, { search: 'alp' }).issues.map((i) => i.title)).toEqual(['Alpha']);
    expect(list(db, { search: '100%_' }).total).toBe(0);
    expect(list(db, { sort: 'count' }).issues.map((i) => i.title)).toEqual(['Beta', 'Alpha']);
    expect(list(db, { sort: 'first-seen' }).issues.map((i) => i.title)).toEqual(['Beta', 'Alpha']);
    expect(db.facets()).toEqual({
      environments: ['development', 'production'],
      releases: ['app@1.0.0', 'app@2.0.0'],
    });
  });

  it('pages', () => {
    const { db } = open();
    for (let i = 0; i < 7; i++)
      db.ingest([event({ hashes: [`h${i}`], title: `T${i}`, timestamp: NOW - i })], NOW);
    const second = list(db, { page: 2, pageSize: 3 });
    expect(second).toMatchObject({ total: 7, page: 2, pageCount: 3 });
    expect(second.issues.map((i) => i.title)).toEqual(['T3', 'T4', 'T5']);
  });
});

describe('an issue', () => {
  it('has a 30-day histogram, tag shares, releases and its events to step through', () => {
    const { db } = open();
    db.ingest(
      [event({ timestamp: NOW - 3 * 24 * HOUR, release: 'app@0.9.0' })],
      NOW - 3 * 24 * HOUR,
    );
    db.ingest([event({ tags: [['browser', 'Firefox 140']] })], NOW);
    db.ingest([event()], NOW + 1);
    const issue = db.issue(1, NOW);
    expect(issue?.daily).toHaveLength(30);
    expect(issue?.daily.at(-1)).toBe(2);
    expect(issue?.daily.at(-4)).toBe(1);
    expect(issue?.firstRelease).toBe('app@0.9.0');
    expect(issue?.releases).toEqual(['app@0.9.0', 'app@1.0.0']);
    expect(issue?.tags.find((tag) => tag.key === 'browser')).toEqual({
      key: 'browser',
      total: 3,
      values: [
        { value: 'Chrome 156', count: 2 },
        { value: 'Firefox 140', count: 1 },
      ],
    });
    const latest = db.event(1);
    expect(latest?.olderId).toBeDefined();
    expect(latest?.newerId).toBeUndefined();
    const older = db.event(1, latest?.olderId);
    expect(older?.newerId).toBe(latest?.eventId);
    expect(db.event(2)).toBeUndefined();
  });
});

describe('finding events', () => {
  it('names the issue of a stored event, and each issue’s latest event id', () => {
    const { db } = open();
    const first = event({ hashes: ['a'] });
    db.ingest([first], NOW);
    db.ingest([event({ hashes: ['b'] })], NOW);
    const latestOfA = event({ hashes: ['a'] });
    db.ingest([latestOfA], NOW + 1);
    expect(db.issueOfEvent(first.event?.eventId as string)).toBe(1);
    expect(db.issueOfEvent('f'.repeat(32))).toBeUndefined();
    expect(db.latestEventIds([1, 2, 99])).toEqual(
      new Map([
        [1, latestOfA.event?.eventId],
        [2, db.event(2)?.eventId],
      ]),
    );
  });
});

describe('retention', () => {
  it('evicts the oldest raw events past the cap but keeps each issue’s first and latest, and every count', () => {
    const { db } = open(5);
    db.ingest([event({ hashes: ['rare'], title: 'Rare' })], NOW);
    for (let i = 0; i < 50; i++) db.ingest([event({ hashes: ['flood'], title: 'Flood' })], NOW + i);
    expect(db.totals()).toEqual({ issues: 2, events: 51, storedEvents: 5 });
    expect(db.issue(1, NOW)?.storedEvents).toBe(1);
    expect(db.issue(2, NOW)).toMatchObject({ count: 50 });
    expect(db.event(1)).toBeDefined();
  });
});

describe('release health and counts', () => {
  it('aggregates sessions per release and environment, counting a session’s outcome once', () => {
    const { db } = open();
    const base = {
      release: 'app@1.0.0',
      environment: 'production',
      errored: 0,
      crashed: 0,
      abnormal: 0,
    };
    db.ingest(
      [
        {
          sessions: [
            { ...base, started: 1, sessionId: 's1' },
            { ...base, started: 1, sessionId: 's2' },
            { ...base, started: 1, sessionId: 's3' },
            { ...base, started: 0, sessionId: 's1', errored: 1 },
            { ...base, started: 0, sessionId: 's1', errored: 1 },
            { ...base, started: 0, sessionId: 's2', errored: 1, crashed: 1 },
            { ...base, started: 5, errored: 2, abnormal: 1 },
          ],
          counts: { session: 6, sessions: 1 },
        },
      ],
      NOW,
    );
    expect(db.releaseHealth()).toEqual([
      {
        release: 'app@1.0.0',
        environment: 'production',
        sessions: 8,
        crashed: 1,
        errored: 4,
        abnormal: 1,
        crashFreeRate: 1 - 1 / 8,
      },
    ]);
    expect(db.itemCounts()).toEqual({ session: 6, sessions: 1 });
    expect(db.totals().issues).toBe(0);
  });

  it('never lets items that are not errors evict an error', () => {
    const { db } = open(1);
    db.ingest([event()], NOW);
    for (let i = 0; i < 1500; i++) db.ingest([{ sessions: [], counts: { span: 1 } }], NOW);
    expect(db.totals().storedEvents).toBe(1);
    expect(db.itemCounts().span).toBe(1500);
  });
});

describe('the file', () => {
  it('keeps everything across a reopen, and clear empties it', () => {
    const { db, path } = open();
    db.ingest([event()], NOW);
    db.close();
    opened.pop();
    const again = openInboxDatabase(path, { maxEvents: 10 });
    opened.push(again);
    expect(list(again).total).toBe(1);
    expect(again.clear()).toBe(1);
    expect(list(again).total).toBe(0);
    expect(again.totals()).toEqual({ issues: 0, events: 0, storedEvents: 0 });
  });

  it('refuses a database written by a newer version, naming both versions', () => {
    const { db, path } = open();
    db.close();
    opened.pop();
    const raw = openInboxDatabase(path, { maxEvents: 1 });
    raw.close();
    // Bump the version past what this code knows.
    const Database = require('better-sqlite3');
    const handle = new Database(path);
    handle.pragma('user_version = 99');
    handle.close();
    expect(() => openInboxDatabase(path, { maxEvents: 1 })).toThrow(
      `version 99, newer than this app knows (${MIGRATIONS.length})`,
    );
  });
});

describe('what a client cannot grow without bound', () => {
  it('holds raw events to the cap even when every event opened an issue of its own', () => {
    const { db } = open(5);
    for (let i = 0; i < 12; i++) db.ingest([event({ hashes: [`distinct-${i}`] })], NOW + i);
    expect(db.totals()).toEqual({ issues: 12, events: 12, storedEvents: 5 });
    // The newest issues keep their event; every issue keeps its count.
    expect(db.event(12)).toBeDefined();
    expect(db.event(1)).toBeUndefined();
    expect(db.issue(1, NOW)?.count).toBe(1);
  });

  it('keeps at most 30 tag keys an issue, so invented keys cannot swell its page', () => {
    const { db } = open();
    for (let i = 0; i < 10; i++) {
      const tags: Array<[string, string]> = Array.from({ length: 20 }, (_, k) => [
        `key-${i}-${k}`,
        'v',
      ]);
      db.ingest([event({ tags })], NOW);
    }
    expect(db.issue(1, NOW)?.tags.length).toBe(30);
  });

  it('counts release health past 1,000 release and environment pairs together', () => {
    const { db } = open();
    const sessions = Array.from({ length: 1_200 }, (_, i) => ({
      release: `rel-${i}`,
      environment: 'production',
      started: 1,
      errored: 0,
      crashed: 0,
      abnormal: 0,
    }));
    db.ingest([{ sessions, counts: { session: 1_200 } }], NOW);
    const health = db.releaseHealth();
    expect(health.length).toBeLessThanOrEqual(50);
    expect(health.find((row) => row.release === '(other)')?.sessions).toBe(200);
  });
});
