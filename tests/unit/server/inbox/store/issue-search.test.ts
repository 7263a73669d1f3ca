/**
 * Search with Sentry's syntax on the store: what each kind of term finds, that a digest finds
 * every stored event's issue (past what an issue keeps of its tags) and goes with its event,
 * that the counts follow the search, that what cannot be searched says so, and that every
 * search reads indexes, never the events or their payloads.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseIssueSearch, searchSqlOf } from '#app/server/inbox/issue-search';
import {
  type InboxDatabase,
  openInboxDatabase,
} from '#app/server/inbox/store/inbox-database.server';
import { MIGRATIONS } from '#app/server/inbox/store/migrations';
import { TRIAGE_ACTIONS } from '#app/server/inbox/triage';
import { inboxDatabases, preparedEvents } from '#tests/support/inbox-store';

const NOW = Date.UTC(2026, 10, 26, 12, 30);
const event = preparedEvents({ timestamp: NOW });
const { open, opened } = inboxDatabases('inbox-search-', 1000);

const search = (db: InboxDatabase, query: string, extra = {}) =>
  db.listIssues({ sort: 'last-seen', page: 1, pageSize: 50, now: NOW, search: query, ...extra });
const titles = (db: InboxDatabase, query: string, extra = {}) => {
  const found = search(db, query, extra);
  expect(found.problems, query).toEqual([]);
  return found.issues.map((issue) => issue.title).sort();
};

/** Three issues: a browser TypeError (2 events), a server failure with a digest, a warning. */
function threeIssues(db: InboxDatabase) {
  db.ingest(
    [
      event({
        url: 'http://localhost:3000/checkout',
        tags: [
          ['browser', 'Chrome 156'],
          ['url', '/checkout'],
          ['user', 'id:42'],
        ],
        userKey: 'id:42',
      }),
      event({ tags: [['browser', 'Firefox 140']], release: 'app@1.1.0' }),
      event({
        title: 'Error: the loader failed',
        message: 'Error: the loader failed\nwhile reading order 1234 from the store',
        culprit: 'app/routes/sign-in.tsx in loader',
        hashes: ['loader'],
        digest: '1a2b3c4d5e',
        environment: 'staging',
        tags: [
          ['digest', '1a2b3c4d5e'],
          ['route', '/orders/$id'],
        ],
      }),
      event({
        title: 'Slow page',
        level: 'warning',
        culprit: 'about',
        hashes: ['slow'],
        tags: [['browser', 'Chrome 156 beta']],
      }),
    ],
    NOW,
  );
}

const TYPE_ERROR = 'TypeError: x is undefined';
const LOADER = 'Error: the loader failed';

describe('search on the store', () => {
  it.each<[string, string[]]>([
    ['', [LOADER, 'Slow page', TYPE_ERROR]],
    ['undefined', [TYPE_ERROR]],
    ['X IS UNDEF', [TYPE_ERROR]], // any case
    ['order 1234', [LOADER]], // the message past the title's first line
    ['sign-in.tsx', [LOADER]], // the culprit
    ['checkout', [TYPE_ERROR]], // a page URL
    ['ad', [LOADER]], // shorter than a trigram: the columns themselves
    ['nothing like this', []],
    ['1a2b3c4d5e', [LOADER]],
    ['digest:1a2b3c4d5e', [LOADER]],
    ['digest:0000000000', []],
    ['release:app@1.1.0', [TYPE_ERROR]],
    ['release:[app@1.1.0, nope]', [TYPE_ERROR]],
    ['!release:app@1.1.0', [LOADER, 'Slow page']],
    ['!release:app@1.0.0', []], // an issue is in every release it was seen in
    ['environment:staging', [LOADER]],
    ['level:warning', ['Slow page']],
    ['!level:warning', [LOADER, TYPE_ERROR]],
    ['browser:"Chrome 156"', [TYPE_ERROR]], // the whole value, not a part
    ['browser:"Chrome 156 beta"', ['Slow page']],
    ['!browser:"Chrome 156"', [LOADER, 'Slow page']],
    ['route:/orders/$id', [LOADER]],
    ['tags[route]:/orders/$id', [LOADER]],
    ['user:id:42', [TYPE_ERROR]], // the issue's users (issue_users), by Sentry's key
    ['user:42', [TYPE_ERROR]], // or by what follows its prefix
    ['user:43', []],
    ['!user:42', [LOADER, 'Slow page']],
    ['undefined browser:"Firefox 140"', [TYPE_ERROR]],
    ['undefined level:warning', []],
  ])('%j finds %j', (query, expected) => {
    const { db } = open();
    threeIssues(db);
    expect(titles(db, query)).toEqual(expected);
  });

  it('counts what the search finds: issues and their events', () => {
    const { db } = open();
    threeIssues(db);
    expect(search(db, '')).toMatchObject({ total: 3, events: 4 });
    expect(search(db, 'undefined')).toMatchObject({ total: 1, events: 2 });
    expect(search(db, 'nothing like this')).toMatchObject({ total: 0, events: 0 });
  });

  it('finds issues by status, a regressed one among them, and hides ignored ones unless asked', () => {
    const { db } = open();
    threeIssues(db);
    db.triage({ kind: 'ids', ids: [1] }, TRIAGE_ACTIONS.resolve, NOW);
    db.triage({ kind: 'ids', ids: [3] }, TRIAGE_ACTIONS.ignore, NOW);
    expect(titles(db, 'is:resolved')).toEqual([TYPE_ERROR]);
    expect(titles(db, 'is:unresolved')).toEqual([LOADER]);
    expect(titles(db, 'is:ignored')).toEqual(['Slow page']);
    expect(titles(db, '!is:resolved')).toEqual([LOADER, 'Slow page']);
    expect(titles(db, 'is:regressed')).toEqual([]);
    // Without a status, ignored issues are hidden and counted.
    expect(search(db, 'level:warning')).toMatchObject({ total: 0, hiddenIgnored: 1 });
    // Resolved, then seen again: regressed, and unresolved (as Sentry's substatus is).
    db.ingest([event()], NOW);
    expect(titles(db, 'is:regressed')).toEqual([TYPE_ERROR]);
    expect(titles(db, 'is:unresolved')).toEqual([LOADER, TYPE_ERROR]);
    expect(titles(db, 'is:resolved')).toEqual([]);
    // The status filter and `is:` both hold.
    expect(titles(db, 'is:regressed', { status: 'resolved' })).toEqual([]);
    db.triage({ kind: 'ids', ids: [1] }, TRIAGE_ACTIONS.resolve, NOW);
    expect(titles(db, 'is:regressed')).toEqual([]);
  });

  it('says what cannot be searched, and lists nothing then', () => {
    const { db } = open();
    threeIssues(db);
    expect(search(db, 'lvl:error')).toMatchObject({
      issues: [],
      total: 0,
      problems: ['unknown search key lvl'],
    });
    expect(search(db, 'is:whatever undefined').problems).toEqual([
      'unknown value for is: whatever (unresolved, resolved, ignored, regressed)',
    ]);
    // A key is known once an event has had it.
    db.ingest([event({ tags: [['lvl', 'error']] })], NOW);
    expect(titles(db, 'lvl:error')).toEqual([TYPE_ERROR]);
  });

  it('finds every stored event’s digest, past the values an issue keeps of a tag', () => {
    const { db } = open();
    const digestOf = (n: number) => n.toString(16).padStart(10, 'd');
    // One issue, 150 server failures with digests of their own: the issue's tag breakdown
    // keeps 100 values of a key, the rest count as "(other)".
    db.ingest(
      Array.from({ length: 150 }, (_, n) =>
        event({ digest: digestOf(n), tags: [['digest', digestOf(n)]] }),
      ),
      NOW,
    );
    db.ingest([event({ title: 'Another', hashes: ['another'] })], NOW);
    const detail = db.issue(1, NOW);
    expect(detail?.tags.find((tag) => tag.key === 'digest')?.values).toHaveLength(101);
    for (const n of [0, 99, 100, 149]) {
      expect(titles(db, digestOf(n)), digestOf(n)).toEqual([TYPE_ERROR]);
      expect(titles(db, `digest:${digestOf(n)}`)).toEqual([TYPE_ERROR]);
    }
  });

  it('lets a digest go with its event: evicted past the event cap, and cleared', () => {
    const { db, path } = open(3);
    db.ingest([event({ digest: 'aaaaaaaaaa' })], NOW); // the issue's first: kept
    db.ingest([event({ digest: 'bbbbbbbbbb' })], NOW); // a middle one: evicted first
    db.ingest([event({ digest: 'cccccccccc' })], NOW);
    db.ingest([event({ digest: 'dddddddddd' })], NOW); // the latest
    expect(db.totals().storedEvents).toBe(3);
    expect(titles(db, 'digest:bbbbbbbbbb')).toEqual([]);
    expect(titles(db, 'digest:aaaaaaaaaa')).toEqual([TYPE_ERROR]);
    expect(titles(db, 'digest:dddddddddd')).toEqual([TYPE_ERROR]);
    db.requestClear(NOW);
    while (!db.clearStep(NOW)?.done) {
      // Batch after batch until the clear is done.
    }
    expect(titles(db, 'digest:aaaaaaaaaa')).toEqual([]);
    const raw = new Database(path, { readonly: true });
    expect(raw.prepare('SELECT count(*) FROM events WHERE digest IS NOT NULL').pluck().get()).toBe(
      0,
    );
    expect(raw.prepare('SELECT count(*) FROM tag_keys').pluck().get()).toBe(0);
    raw.close();
  });

  it('finds a new title, culprit or page of an issue, and no longer the old ones', () => {
    const { db } = open();
    db.ingest([event({ title: 'Old title', culprit: 'old.js', hashes: ['h'] })], NOW);
    db.ingest(
      [event({ title: 'New title', culprit: 'new.js', hashes: ['h'], tags: [['url', '/p2']] })],
      NOW + 1,
    );
    expect(titles(db, 'old title')).toEqual([]);
    expect(titles(db, 'old.js')).toEqual([]);
    expect(titles(db, 'new.js')).toEqual(['New title']);
    expect(titles(db, '/p2')).toEqual(['New title']);
  });

  it('reads indexes only: no search scans the events, their payloads or the tag tables', () => {
    const { db, path } = open();
    threeIssues(db);
    const raw = new Database(path, { readonly: true });
    const planOf = (query: string) => {
      const parsed = parseIssueSearch(query);
      expect(parsed.problems).toEqual([]);
      const { where, params } = searchSqlOf(parsed.terms, NOW);
      return raw
        .prepare(
          `EXPLAIN QUERY PLAN SELECT * FROM issues WHERE ${where.join(' AND ')}
           ORDER BY last_seen DESC, id DESC LIMIT 50`,
        )
        .all(params)
        .map((row) => (row as { detail: string }).detail);
    };
    const scans = (plan: string[]) => plan.filter((line) => /^SCAN (?!issues\b)/.test(line));
    for (const query of [
      'undefined',
      '1a2b3c4d5e',
      'digest:1a2b3c4d5e',
      'release:app@1.1.0',
      'environment:staging',
      'browser:"Chrome 156"',
      '!browser:"Chrome 156"',
      'user:id:42',
      'is:regressed',
      'level:warning',
    ]) {
      const plan = planOf(query);
      // Only the issues themselves are walked (in the list's order); trigram tables are read
      // through their index (FTS5 says "VIRTUAL TABLE INDEX … M"), anything else by a key.
      expect(
        scans(plan).filter((line) => !/VIRTUAL TABLE INDEX \d+:M/.test(line)),
        query,
      ).toEqual([]);
      expect(plan.join('\n'), query).not.toMatch(/\bSCAN events\b/);
    }
    expect(planOf('digest:1a2b3c4d5e').join('\n')).toContain('USING COVERING INDEX events_digest');
    expect(planOf('undefined').join('\n')).toMatch(/SCAN issue_text VIRTUAL TABLE INDEX \d+:M/);
    expect(planOf('browser:"Chrome 156"').join('\n')).toMatch(
      /SEARCH issue_tags (EXISTS )?USING PRIMARY KEY \(issue_id=\? AND key=\? AND value=\?\)/,
    );
    expect(planOf('user:42').join('\n')).toMatch(
      /issue_users USING COVERING INDEX issue_users_key/,
    );
    raw.close();
  });

  it('searches what a file from before search holds: digests from the payloads, text, pages, tag keys', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'inbox-search-')), 'inbox.sqlite');
    const old = new Database(path);
    for (const step of MIGRATIONS.slice(0, 5)) old.exec(step);
    old.pragma('user_version = 5');
    old.exec(`INSERT INTO issues (id, title, culprit, level, platform, status, first_seen, last_seen,
        event_count, first_release, last_release, grouping_config)
      VALUES (1, 'Error: loader failed', 'sign-in.tsx', 'error', 'node', 'unresolved', 0, 0, 2, '', '', ''),
             (2, 'TypeError: x', 'about.tsx', 'error', 'javascript', 'unresolved', 0, 0, 1, '', '', '')`);
    old.exec(`INSERT INTO issue_urls (issue_id, url) VALUES (2, '/checkout');
      INSERT INTO issue_tags (issue_id, key, value, count) VALUES (2, 'browser', 'Chrome 156', 1)`);
    const insert = old.prepare(
      `INSERT INTO events (event_id, issue_id, received_at, timestamp, environment, release, url, payload)
       VALUES (?, ?, 0, 0, '', '', '', ?)`,
    );
    // Tags as an object and as Sentry's pairs; a payload without tags.
    insert.run('e1', 1, JSON.stringify({ tags: { digest: 'aaaaaaaaaa' } }));
    insert.run('e2', 1, JSON.stringify({ tags: [['digest', 'bbbbbbbbbb']] }));
    insert.run('e3', 2, '{}');
    old.close();
    const db = openInboxDatabase(path, { maxEvents: 100 });
    opened.push(db);
    expect(titles(db, 'aaaaaaaaaa')).toEqual(['Error: loader failed']);
    expect(titles(db, 'digest:bbbbbbbbbb')).toEqual(['Error: loader failed']);
    expect(titles(db, 'loader')).toEqual(['Error: loader failed']);
    expect(titles(db, 'checkout')).toEqual(['TypeError: x']);
    expect(titles(db, 'browser:"Chrome 156"')).toEqual(['TypeError: x']);
  });
});
