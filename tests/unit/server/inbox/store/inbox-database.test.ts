import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  EVENT_CAP_SQL,
  type InboxDatabase,
  MAX_USERS_PER_ISSUE,
  openInboxDatabase,
  type PreparedEnvelope,
} from '#app/server/inbox/store/inbox-database.server';
import { ISSUE_EVENTS_SQL } from '#app/server/inbox/store/inbox-reads.server';
import { MIGRATIONS } from '#app/server/inbox/store/migrations';
import { PAGE_SIZE } from '#app/server/inbox/store/store-cap';
import { TRIAGE_ACTIONS } from '#app/server/inbox/triage';
import { inboxDatabases, preparedEvents } from '#tests/support/inbox-store';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 26, 12, 30);
const event = preparedEvents({
  timestamp: NOW,
  url: 'http://localhost:3000/sentry-example-page',
  hashes: ['app-hash-1', 'system-hash-1'],
  tags: [
    ['browser', 'Chrome 156'],
    ['os', 'Linux'],
  ],
});
const { open, opened } = inboxDatabases('inbox-db-', 1000);

/** One issue's triage, as its page's form asks: whether it changed. */
const setStatus = (db: InboxDatabase, id: number, action: keyof typeof TRIAGE_ACTIONS) =>
  db.triage({ kind: 'ids', ids: [id] }, TRIAGE_ACTIONS[action], NOW).changed === 1;

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
    expect(setStatus(db, 1, 'resolve')).toBe(true);
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
    setStatus(db, 2, 'ignore');
    db.ingest([event({ hashes: ['y'], title: 'Other' })], NOW);
    const shown = list(db);
    expect(shown.issues.map((issue) => issue.id)).toEqual([1]);
    expect(shown.hiddenIgnored).toBe(1);
    expect(list(db, { status: 'ignored' }).issues[0]).toMatchObject({ id: 2, count: 2 });
    expect(setStatus(db, 99, 'resolve')).toBe(false);
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
  }, 60_000);

  it('evicts the same events in the same order as the rule says, batch by batch at the cap', () => {
    // The rule, as docs/local-inbox.md states it, over the events in the order they were stored:
    // the oldest that are neither their issue's first nor its latest, then the oldest that are
    // not its latest, then the oldest of all.
    const model: Array<{ id: string; issue: string }> = [];
    const evictable = (stage: (first: boolean, latest: boolean) => boolean) => {
      const firsts = new Set<string>();
      const latests = new Map(model.map((e, i) => [e.issue, i]));
      return model.filter((e, i) => {
        const first = !firsts.has(e.issue);
        firsts.add(e.issue);
        return stage(first, latests.get(e.issue) === i);
      });
    };
    const stagesUsed = new Set<number>();
    const evictModel = (max: number) => {
      const stages = [
        (first: boolean, latest: boolean) => !first && !latest,
        (_: boolean, latest: boolean) => !latest,
        () => true,
      ];
      for (const [index, stage] of stages.entries()) {
        const excess = model.length - max;
        if (excess <= 0) return;
        const gone = new Set(
          evictable(stage)
            .slice(0, excess)
            .map((e) => e.id),
        );
        if (gone.size > 0) stagesUsed.add(index);
        model.splice(0, model.length, ...model.filter((e) => !gone.has(e.id)));
      }
    };
    const MAX = 12;
    const { db, path } = open(MAX);
    const Database = require('better-sqlite3');
    const raw = new Database(path, { readonly: true });
    // A fixed pseudo-random mix: a flood, a few regulars, rare issues, bursts wider than the cap.
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let step = 0; step < 120; step++) {
      const size = step % 17 === 0 ? MAX + 3 : 1 + Math.floor(next() * 4);
      const batch = Array.from({ length: size }, () => {
        const r = next();
        const issue =
          r < 0.5 ? 'flood' : r < 0.8 ? `regular-${Math.floor(r * 10)}` : `rare-${step}`;
        const envelope = event({ hashes: [issue] });
        model.push({ id: envelope.event?.eventId as string, issue });
        return envelope;
      });
      db.ingest(batch, NOW + step);
      evictModel(MAX);
      const stored = raw.prepare('SELECT event_id FROM events ORDER BY id').pluck().all();
      expect(stored, `after batch ${step}`).toEqual(model.map((e) => e.id));
      expect(db.totals().storedEvents).toBe(model.length);
    }
    // The mix reached every stage of the rule.
    expect([...stagesUsed].sort()).toEqual([0, 1, 2]);
    raw.close();
  });

  it('finds the events to evict through indexes: no statement of the event cap reads the table', () => {
    const { path } = open();
    const Database = require('better-sqlite3');
    const raw = new Database(path, { readonly: true });
    const plan = (sql: string) =>
      raw
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...(sql.includes('?') ? [10] : []))
        .map((row: { detail: string }) => row.detail);
    const fromTheFront = (index: string) => [
      'SEARCH events USING INTEGER PRIMARY KEY (rowid=?)',
      'LIST SUBQUERY 1',
      // The front of the index, read in order until the LIMIT: as many rows as are evicted.
      `SCAN events USING COVERING INDEX ${index}`,
    ];
    expect(plan(EVENT_CAP_SQL.countEvents)).toEqual([
      'SEARCH row_counts USING PRIMARY KEY (name=?)',
    ]);
    expect(plan(EVENT_CAP_SQL.evictMiddle)).toEqual(fromTheFront('events_middle'));
    expect(plan(EVENT_CAP_SQL.evictFirsts)).toEqual(fromTheFront('events_not_latest'));
    expect(plan(EVENT_CAP_SQL.evictOldest)).toEqual([
      'SEARCH events USING INTEGER PRIMARY KEY (rowid=?)',
      'LIST SUBQUERY 1',
      'SCAN events', // by rowid, in order, until the LIMIT
    ]);
    // What the triggers look up when an event is stored or evicted: one issue's ends.
    for (const sql of [
      'SELECT max(id) FROM events WHERE issue_id = 1 AND id < 9',
      'SELECT min(id) FROM events WHERE issue_id = 1',
    ]) {
      expect(plan(sql)).toEqual([
        expect.stringMatching(/^SEARCH events USING COVERING INDEX events_issue_id /),
      ]);
    }
    raw.close();
  });
});

describe('release health and counts', () => {
  it('aggregates sessions per release and environment, counting a session’s outcome once', () => {
    const { db } = open();
    const base = {
      release: 'app@1.0.0',
      environment: 'production',
      errored: 0,
      unhandled: 0,
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
            { ...base, started: 1, sessionId: 's4' },
            { ...base, started: 0, sessionId: 's1', errored: 1 },
            { ...base, started: 0, sessionId: 's1', errored: 1 },
            { ...base, started: 0, sessionId: 's2', errored: 1, crashed: 1 },
            // A browser page's uncaught error, sent twice (by beacon, then by the SDK).
            { ...base, started: 0, sessionId: 's4', errored: 1, unhandled: 1 },
            { ...base, started: 0, sessionId: 's4', errored: 1, unhandled: 1 },
            { ...base, started: 5, errored: 2, abnormal: 1 },
          ],
          counts: { session: 9, sessions: 1 },
        },
      ],
      NOW,
    );
    expect(db.releaseHealth()).toEqual([
      {
        release: 'app@1.0.0',
        environment: 'production',
        sessions: 9,
        healthy: 4,
        errored: 2,
        unhandled: 1,
        crashed: 1,
        abnormal: 1,
        crashFreeRate: 1 - 1 / 9,
        unhandledRate: 1 / 9,
      },
    ]);
    expect(db.itemCounts()).toEqual({ session: 9, sessions: 1 });
    expect(db.totals().issues).toBe(0);
  });

  it('never lets items that are not errors evict an error', () => {
    const { db } = open(1);
    db.ingest([event()], NOW);
    // In batches, as the ingest thread commits them: 1,500 commits would only test the disk.
    const spans: PreparedEnvelope[] = Array.from({ length: 100 }, () => ({
      sessions: [],
      counts: { span: 1 },
    }));
    for (let i = 0; i < 15; i++) db.ingest(spans, NOW);
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
    expect(again.requestClear(NOW)).toEqual({ total: 1, deleted: 0, done: false });
    expect(again.clearStep(NOW)).toEqual({ total: 1, deleted: 1, done: true });
    expect(again.clearStep(NOW)).toBeUndefined();
    expect(list(again).total).toBe(0);
    expect(again.totals()).toEqual({ issues: 0, events: 0, storedEvents: 0 });
  });

  it('never gives a deleted issue’s id to a new issue, also once the inbox was cleared', () => {
    const { db } = open();
    const ids = (results: ReturnType<InboxDatabase['ingest']>) =>
      results.map((result) => (result.kind === 'stored' ? result.issueId : result.kind));
    expect(ids(db.ingest([event({ hashes: ['a'] }), event({ hashes: ['b'] })], NOW))).toEqual([
      1, 2,
    ]);
    db.requestClear(NOW);
    while (db.clearStep(NOW)) {}
    expect(db.totals().issues).toBe(0);
    // SQLite alone would give 1 again: the old issue's links and alerts would name this one.
    expect(ids(db.ingest([event({ hashes: ['c'] })], NOW))).toEqual([3]);
  });

  it('starts the ids of a file made before after the highest it holds', () => {
    const { path, old } = fileAtVersion(MIGRATIONS.length - 1);
    old
      .prepare(
        `INSERT INTO issues (id, title, culprit, level, platform, status, first_seen, last_seen,
           event_count, first_release, last_release, grouping_config)
         VALUES (41, 'old', '', 'error', 'javascript', 'unresolved', ?, ?, 1, '', '', 'newstyle:2023-01-11')`,
      )
      .run(NOW, NOW);
    old.close();
    const db = openInboxDatabase(path, { maxEvents: 100 });
    opened.push(db);
    expect(db.ingest([event({ hashes: ['new'] })], NOW)).toEqual([
      { kind: 'stored', issueId: 42, isNewIssue: true, regressed: false },
    ]);
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

  it("caps a new issue's tags as it caps a known issue's (the first event's rows are counted apart)", () => {
    const { db } = open();
    const tags: Array<[string, string]> = [
      ['url', '/a'],
      ['url', '/a'],
      ...Array.from({ length: 102 }, (_, i): [string, string] => ['wide', `v${i}`]),
      ['wide', 'v7'],
      ['wide', '(other)'],
      ...Array.from({ length: 30 }, (_, i): [string, string] => [`key-${i}`, `value-${i}`]),
      ['url', '/b'],
    ];
    // The first event opens the issue with its tags; the other's tags come with its second event.
    db.ingest([event({ hashes: ['opened-with-tags'], tags })], NOW);
    db.ingest([event({ hashes: ['tags-later'], tags: [] })], NOW);
    db.ingest([event({ hashes: ['tags-later'], tags })], NOW);
    const [first, later] = [1, 2].map((id) => db.issue(id, NOW)?.tags);
    expect(first).toEqual(later);
    expect(first?.map((tag) => tag.key)).toEqual(
      ['url', 'wide', ...Array.from({ length: 28 }, (_, i) => `key-${i}`)].sort(),
    );
    expect(first?.find((tag) => tag.key === 'wide')?.values.length).toBe(101);
    // Both found by their page URL, as search reads it.
    expect(list(db, { search: '/a' }).total).toBe(2);
    expect(list(db, { search: '/b' }).total).toBe(2);
  });

  it('counts release health past 1,000 release and environment pairs together', () => {
    const { db } = open();
    const sessions = Array.from({ length: 1_200 }, (_, i) => ({
      release: `rel-${i}`,
      environment: 'production',
      started: 1,
      errored: 0,
      unhandled: 0,
      crashed: 0,
      abnormal: 0,
    }));
    db.ingest([{ sessions, counts: { session: 1_200 } }], NOW);
    const health = db.releaseHealth();
    expect(health.length).toBeLessThanOrEqual(50);
    expect(health.find((row) => row.release === '(other)')?.sessions).toBe(200);
  });
});

/** An event that opens an issue of its own, as the tagged-issue flood sends: ~14 KB stored. */
function taggedIssue(n: number): PreparedEnvelope {
  const noise = (i: number) => `${n}-${i}-`.padEnd(200, 'abcdefghijklmnopqrstuvwxyz'[i % 26]);
  return event({
    hashes: [`tagged-${n}`],
    release: `release-${n}`,
    tags: Array.from({ length: 30 }, (_, i): [string, string] => [`key-${i}`, noise(i)]),
  });
}

/** What the file and its WAL take on disk, bytes. */
function onDisk(path: string): number {
  const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);
  return size(path) + size(`${path}-wal`);
}

/** A database file as an older version of the app left it: the first `version` migrations. */
function fileAtVersion(version: number) {
  const path = join(mkdtempSync(join(tmpdir(), 'inbox-db-')), 'inbox.sqlite');
  const Database = require('better-sqlite3');
  const old = new Database(path);
  for (const step of MIGRATIONS.slice(0, version)) old.exec(step);
  old.pragma(`user_version = ${version}`);
  return { path, old };
}

function rows(path: string, table: string): number {
  const Database = require('better-sqlite3');
  const handle = new Database(path, { readonly: true });
  try {
    return handle.prepare(`SELECT count(*) AS n FROM ${table}`).get().n;
  } finally {
    handle.close();
  }
}

describe('the cap on disk (MONITORING_INBOX_MAX_MB)', () => {
  it('holds the file and its WAL within 8 MiB under a flood of tagged issues, keeping the newest', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'inbox-db-')), 'inbox.sqlite');
    const db = openInboxDatabase(path, { maxEvents: 10_000, maxMb: 8 });
    opened.push(db);
    let evicted = 0;
    let largest = 0;
    // ~14 KB an issue: 1,200 of them is 17 MB, twice the cap.
    for (let batch = 0; batch < 60; batch++) {
      db.ingest(
        Array.from({ length: 20 }, (_, i) => taggedIssue(batch * 20 + i)),
        NOW + batch,
      );
      evicted += db.takeEvictedIssues();
      largest = Math.max(largest, onDisk(path));
    }
    expect(largest).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(evicted).toBeGreaterThan(400);
    const { issues } = list(db, { pageSize: 5 });
    // The newest are there, the oldest went first, their hashes, releases and tags with them.
    expect(issues[0]?.id).toBe(1_200);
    expect(db.issue(evicted, NOW)).toBeUndefined();
    expect(db.issue(evicted + 1, NOW)).toBeDefined();
    expect(db.totals().issues).toBe(1_200 - evicted);
    expect(rows(path, 'issue_hashes')).toBe(1_200 - evicted);
    expect(rows(path, 'issue_releases')).toBe(1_200 - evicted);
    expect(rows(path, 'issue_tags')).toBe(30 * (1_200 - evicted));
    expect(db.takeEvictedIssues()).toBe(0);
  }, 60_000);

  it('keeps the one issue left and evicts its oldest events instead', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'inbox-db-')), 'inbox.sqlite');
    const db = openInboxDatabase(path, { maxEvents: 1_000_000, maxMb: 8 });
    opened.push(db);
    const payload = JSON.stringify({ filler: 'x'.repeat(20_000) });
    for (let i = 0; i < 600; i++) db.ingest([event({ payload })], NOW + i);
    expect(onDisk(path)).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(db.totals().issues).toBe(1);
    expect(db.totals().events).toBe(600);
    expect(db.totals().storedEvents).toBeLessThan(600);
    expect(db.event(1)).toBeDefined();
  }, 60_000);

  it('bounds session outcomes to the cap’s share (128 a MiB), the oldest going first', () => {
    const { path } = open();
    const db = openInboxDatabase(path, { maxEvents: 100, maxMb: 8 });
    opened.push(db);
    for (let envelope = 0; envelope < 30; envelope++) {
      const sessions = Array.from({ length: 100 }, (_, i) => ({
        release: 'app@1.0.0',
        environment: 'production',
        started: 1,
        errored: 1,
        unhandled: 0,
        crashed: 1,
        abnormal: 0,
        sessionId: (envelope * 100 + i).toString(16).padStart(32, '0'),
      }));
      db.ingest([{ sessions, counts: { session: 100 } }], NOW + envelope);
    }
    expect(rows(path, 'session_outcomes')).toBe(8 * 128);
    expect(db.releaseHealth()[0]).toMatchObject({ sessions: 3_000, crashed: 3_000 });
  });

  it('caps the releases and environments an issue keeps, the rest as "(other)"', () => {
    const { db } = open();
    for (let i = 0; i < 130; i++) {
      db.ingest([event({ release: `rel-${i}`, environment: `env-${i}` })], NOW + i);
    }
    const issue = db.issue(1, NOW);
    expect(issue?.releases).toHaveLength(101);
    expect(issue?.releases).toContain('(other)');
    expect(issue?.environments).toHaveLength(21);
    expect(issue?.count).toBe(130);
  });
});

describe('clearing in batches', () => {
  it('deletes the issues there were when asked, a batch a step, and the file shrinks after', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'inbox-db-')), 'inbox.sqlite');
    const db = openInboxDatabase(path, { maxEvents: 10_000, maxMb: 64 });
    opened.push(db);
    for (let batch = 0; batch < 25; batch++) {
      db.ingest(
        Array.from({ length: 20 }, (_, i) => taggedIssue(batch * 20 + i)),
        NOW,
      );
    }
    db.checkpoint();
    const before = onDisk(path);
    expect(db.requestClear(NOW)).toEqual({ total: 500, deleted: 0, done: false });
    // An issue that arrives during the clear stays.
    db.ingest([event({ hashes: ['after'] })], NOW);
    const steps = [];
    for (let step = db.clearStep(NOW); step; step = db.clearStep(NOW)) steps.push(step);
    expect(steps).toEqual([
      { total: 500, deleted: 200, done: false },
      { total: 500, deleted: 400, done: false },
      { total: 500, deleted: 500, done: true },
    ]);
    expect(db.clearProgress()).toEqual({ total: 500, deleted: 500, done: true });
    expect(db.totals().issues).toBe(1);
    while (db.reclaimSpace(1024) > 0) {}
    db.checkpoint();
    expect(onDisk(path)).toBeLessThan(before / 4);
  }, 60_000);

  it('starts from a file made before: it takes incremental vacuum, and unknown item types fold into "other"', () => {
    const { path, old } = fileAtVersion(3);
    const Database = require('better-sqlite3');
    const insert = old.prepare('INSERT INTO item_counts (type, count) VALUES (?, ?)');
    insert.run('span', 2);
    insert.run('other', 1);
    old.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run(`q${i.toString(36).padStart(28, 'x')}`, 1);
    })();
    old.close();
    const db = openInboxDatabase(path, { maxEvents: 100 });
    opened.push(db);
    expect({ ...db.itemCounts() }).toEqual({ other: 501, span: 2 });
    const check = new Database(path, { readonly: true });
    expect(check.pragma('auto_vacuum', { simple: true })).toBe(2);
    check.close();
  });

  it('starts from a file with events stored before the event count and ends were kept', () => {
    const { path, old } = fileAtVersion(4);
    const Database = require('better-sqlite3');
    // Issue 1: events 1, 3, 4, 6; issue 2: events 2, 5.
    old.exec(`INSERT INTO issues (id, title, culprit, level, platform, status, first_seen, last_seen,
        event_count, first_release, last_release, grouping_config)
      VALUES (1, 'A', '', 'error', 'javascript', 'unresolved', 0, 0, 4, '', '', ''),
             (2, 'B', '', 'error', 'javascript', 'unresolved', 0, 0, 2, '', '', '')`);
    const insert = old.prepare(
      `INSERT INTO events (id, event_id, issue_id, received_at, timestamp, environment, release, url, payload)
       VALUES (?, ?, ?, 0, 0, '', '', '', '{}')`,
    );
    for (const [id, issue] of [
      [1, 1],
      [2, 2],
      [3, 1],
      [4, 1],
      [5, 2],
      [6, 1],
    ]) {
      insert.run(id, `old-${id}`, issue);
    }
    old.close();
    const db = openInboxDatabase(path, { maxEvents: 4 });
    opened.push(db);
    expect(db.totals().storedEvents).toBe(6);
    // One more event (it opens issue 3) makes 7 past a cap of 4: issue 1's two middle events go
    // (3, 4), then the oldest that is not its issue's latest (1).
    db.ingest([event({ hashes: ['new'] })], NOW);
    const check = new Database(path, { readonly: true });
    expect(check.prepare('SELECT id FROM events ORDER BY id').pluck().all()).toEqual([2, 5, 6, 7]);
    check.close();
    expect(db.totals().storedEvents).toBe(4);
  });
});

describe('the page size the cap assumes', () => {
  it('is SQLite’s default', () => {
    const { path } = open();
    const Database = require('better-sqlite3');
    const check = new Database(path, { readonly: true });
    expect(check.pragma('page_size', { simple: true })).toBe(PAGE_SIZE);
    check.close();
  });
});

describe('who was hit', () => {
  it('counts an issue’s distinct users: three users and a repeat are 3, each issue its own', () => {
    const { db, path } = open();
    for (const userKey of ['id:1', 'email:a@example.com', 'id:1', 'ip:192.0.2.1']) {
      db.ingest([event({ userKey })], NOW);
    }
    db.ingest([event()], NOW);
    db.ingest([event({ hashes: ['other'], userKey: 'id:1' })], NOW);
    expect(list(db).issues.map((issue) => [issue.count, issue.users])).toEqual([
      [1, 1],
      [5, 3],
    ]);
    expect(db.issue(1, NOW)).toMatchObject({ users: 3, usersPastCap: false });
    expect(rows(path, 'issue_users')).toBe(4);
  });

  it('keeps at most MAX_USERS_PER_ISSUE users an issue and says that more came', () => {
    const { db, path } = open(10);
    const batch = Array.from({ length: MAX_USERS_PER_ISSUE }, (_, i) =>
      event({ userKey: `id:${i}` }),
    );
    db.ingest(batch, NOW);
    expect(db.issue(1, NOW)).toMatchObject({ users: MAX_USERS_PER_ISSUE, usersPastCap: false });
    // A user already counted is still one of them; a new one past the cap is only noted.
    db.ingest([event({ userKey: 'id:0' })], NOW);
    expect(db.issue(1, NOW)).toMatchObject({ users: MAX_USERS_PER_ISSUE, usersPastCap: false });
    db.ingest([event({ userKey: 'id:random-1' }), event({ userKey: 'id:random-2' })], NOW);
    expect(db.issue(1, NOW)).toMatchObject({ users: MAX_USERS_PER_ISSUE, usersPastCap: true });
    expect(rows(path, 'issue_users')).toBe(MAX_USERS_PER_ISSUE);
  });

  it('goes with its issue when the inbox is cleared or the issue evicted at the cap on disk', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'inbox-db-')), 'inbox.sqlite');
    const db = openInboxDatabase(path, { maxEvents: 10_000, maxMb: 8 });
    opened.push(db);
    let evicted = 0;
    for (let batch = 0; batch < 60; batch++) {
      db.ingest(
        Array.from({ length: 20 }, (_, i) => {
          const n = batch * 20 + i;
          const prepared = taggedIssue(n);
          if (prepared.event) prepared.event.userKey = `id:${n}`;
          return prepared;
        }),
        NOW + batch,
      );
      evicted += db.takeEvictedIssues();
    }
    expect(evicted).toBeGreaterThan(0);
    expect(rows(path, 'issue_users')).toBe(1_200 - evicted);
    db.requestClear(NOW);
    while (db.clearStep(NOW)) {}
    expect(rows(path, 'issue_users')).toBe(0);
  }, 60_000);

  it('finds an issue by a user’s key through its index', () => {
    const { path } = open();
    const Database = require('better-sqlite3');
    const raw = new Database(path, { readonly: true });
    const plan = raw
      .prepare('EXPLAIN QUERY PLAN SELECT issue_id FROM issue_users WHERE user_key = ?')
      .all('id:1')
      .map((row: { detail: string }) => row.detail);
    expect(plan).toEqual([
      expect.stringMatching(/^SEARCH issue_users USING COVERING INDEX issue_users_key /),
    ]);
    raw.close();
  });
});

describe('an issue’s events', () => {
  it('pages newest first after the event a page ends with, and says when none are older', () => {
    const { db } = open();
    const ids: string[] = [];
    const arrivals = [0, 1, 2, 3, 3, 4, 5];
    for (const [i, second] of arrivals.entries()) {
      const prepared = event({ timestamp: NOW + i });
      ids.push(prepared.event?.eventId as string);
      // The third and the fourth newest arrive in the same millisecond, across a page's end:
      // the row order keeps them apart.
      db.ingest([prepared], NOW + second * 1000);
    }
    db.ingest([event({ hashes: ['another issue'] })], NOW + 9_000);
    const newestFirst = [...ids].reverse();
    const first = db.issueEvents(1, { limit: 3 });
    expect(first?.events.map((e) => e.eventId)).toEqual(newestFirst.slice(0, 3));
    expect(first?.events[0]).toMatchObject({
      receivedAt: NOW + 5_000,
      environment: 'production',
      release: 'app@1.0.0',
    });
    expect(first?.nextBefore).toBe(newestFirst[2]);
    const second = db.issueEvents(1, { before: first?.nextBefore, limit: 3 });
    expect(second?.events.map((e) => e.eventId)).toEqual(newestFirst.slice(3, 6));
    const third = db.issueEvents(1, { before: second?.nextBefore, limit: 3 });
    expect(third).toEqual({ events: [expect.objectContaining({ eventId: ids[0] })] });
    // An event that is not this issue's starts no page.
    expect(db.issueEvents(2, { before: ids[0], limit: 3 })).toBeUndefined();
  });

  it('bounds a page, whatever is asked', () => {
    const { db } = open();
    db.ingest(
      Array.from({ length: 120 }, () => event()),
      NOW,
    );
    expect(db.issueEvents(1, { limit: 1_000_000 })?.events).toHaveLength(100);
    expect(db.issueEvents(1, { limit: 0 })?.events).toHaveLength(1);
  });

  it('reads a page from the issue’s end of the events’ issue index, never the whole table', () => {
    const { path } = open();
    const Database = require('better-sqlite3');
    const raw = new Database(path, { readonly: true });
    const plan = (sql: string) =>
      raw
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all({ issue: 1, at: NOW, id: 5, limit: 21 })
        .map((row: { detail: string }) => row.detail);
    expect(plan(ISSUE_EVENTS_SQL.newest)).toEqual([
      'SEARCH events USING INDEX events_issue (issue_id=?)',
    ]);
    // A range of the index, read backwards from the page's start until the LIMIT.
    expect(plan(ISSUE_EVENTS_SQL.before)).toEqual([
      'SEARCH events USING INDEX events_issue (issue_id=? AND received_at<?)',
    ]);
    raw.close();
  });
});
