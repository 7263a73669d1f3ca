/**
 * Triage in the store (issue 34): what each mute, the resolve in the next release and a delete
 * do to the events that come after, as `ingest` answers them (the alerts read `regressed`) and
 * as the list shows them.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type {
  InboxDatabase,
  IngestOutcome,
  PreparedEnvelope,
} from '#app/server/inbox/store/inbox-database.server';
import { TRIAGE_ACTIONS, type TriageActionName } from '#app/server/inbox/triage';
import { inboxDatabases, preparedEvents } from '#tests/support/inbox-store';

const MINUTE = 60_000;
const NOW = Date.UTC(2026, 10, 28, 12, 0);
const event = preparedEvents({
  timestamp: NOW,
  url: 'http://localhost:3000/checkout',
  hashes: ['hash-1'],
  tags: [['browser', 'Chrome 156']],
  userKey: 'id:1',
});
const { open } = inboxDatabases('inbox-triage-', 10_000);

const triage = (db: InboxDatabase, ids: number[], action: TriageActionName, now = NOW) =>
  db.triage({ kind: 'ids', ids }, TRIAGE_ACTIONS[action], now);

/** Whether the event regressed its issue, as ingest answers it. */
function regressedBy(db: InboxDatabase, envelope: PreparedEnvelope, at = NOW): boolean {
  const [outcome] = db.ingest([envelope], at) as [IngestOutcome];
  if (outcome.kind !== 'stored') throw new Error(`not stored: ${outcome.kind}`);
  return outcome.regressed;
}

const shown = (db: InboxDatabase, now = NOW, search?: string) =>
  db
    .listIssues({
      sort: 'last-seen',
      page: 1,
      pageSize: 50,
      now,
      status: 'all',
      ...(search ? { search } : {}),
    })
    .issues.map((issue) => ({ id: issue.id, status: issue.status, regressed: issue.regressed }));

const titlesFound = (db: InboxDatabase, search: string, now = NOW) =>
  db
    .listIssues({ sort: 'last-seen', page: 1, pageSize: 50, now, search })
    .issues.map((issue) => issue.id);

describe('a mute ends, and the event that ends it regresses the issue once', () => {
  it('for a time: the first event after it passed', () => {
    const { db } = open();
    db.ingest([event()], NOW);
    triage(db, [1], 'ignore-30m');
    expect(regressedBy(db, event(), NOW + 29 * MINUTE)).toBe(false);
    expect(shown(db, NOW + 29 * MINUTE)).toEqual([{ id: 1, status: 'ignored', regressed: false }]);
    expect(regressedBy(db, event(), NOW + 31 * MINUTE)).toBe(true);
    expect(regressedBy(db, event(), NOW + 32 * MINUTE)).toBe(false);
    expect(shown(db, NOW + 32 * MINUTE)).toEqual([
      { id: 1, status: 'unresolved', regressed: true },
    ]);
  });

  it('until N more events: the Nth', () => {
    const { db } = open();
    db.ingest([event()], NOW);
    triage(db, [1], 'ignore-10-events');
    const outcomes = Array.from({ length: 11 }, () => regressedBy(db, event()));
    expect(outcomes.indexOf(true)).toBe(9);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(shown(db)).toEqual([{ id: 1, status: 'unresolved', regressed: true }]);
  });

  it('until N more users: the event of the Nth new user, however many events came between', () => {
    const { db } = open();
    db.ingest([event({ userKey: 'id:0' })], NOW);
    triage(db, [1], 'ignore-10-users');
    const outcomes: boolean[] = [];
    for (let user = 1; user <= 11; user++) {
      // A user seen already, and an event with none, count for nothing.
      outcomes.push(regressedBy(db, event({ userKey: 'id:0' })));
      outcomes.push(regressedBy(db, event({ userKey: undefined })));
      outcomes.push(regressedBy(db, event({ userKey: `id:${user}` })));
    }
    expect(outcomes.indexOf(true)).toBe(3 * 10 - 1);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
  });

  it('never, ignored forever', () => {
    const { db } = open();
    db.ingest([event()], NOW);
    triage(db, [1], 'ignore');
    for (let i = 0; i < 20; i++) {
      expect(regressedBy(db, event({ userKey: `id:${i}` }), NOW + i * 24 * 60 * MINUTE)).toBe(
        false,
      );
    }
    expect(shown(db, NOW + 10_000 * MINUTE)).toEqual([
      { id: 1, status: 'ignored', regressed: false },
    ]);
  });
});

describe('a time mute that passed with no event', () => {
  it('shows the issue unresolved in the list and to search, though no event came', () => {
    const { db } = open();
    db.ingest([event()], NOW);
    db.ingest([event({ hashes: ['other'], title: 'Other' })], NOW);
    triage(db, [1], 'ignore-1h');
    // Before: ignored, hidden from the default list.
    expect(titlesFound(db, 'is:ignored', NOW + 59 * MINUTE)).toEqual([1]);
    expect(titlesFound(db, 'is:unresolved', NOW + 59 * MINUTE)).toEqual([2]);
    expect(
      db.listIssues({ sort: 'last-seen', page: 1, pageSize: 50, now: NOW + 59 * MINUTE })
        .hiddenIgnored,
    ).toBe(1);
    // After: unresolved everywhere, and on its page.
    const later = NOW + 61 * MINUTE;
    expect(titlesFound(db, 'is:ignored', later)).toEqual([]);
    expect(titlesFound(db, 'is:unresolved', later).sort()).toEqual([1, 2]);
    expect(
      db.listIssues({ sort: 'last-seen', page: 1, pageSize: 50, now: later, status: 'unresolved' })
        .total,
    ).toBe(2);
    expect(
      db.listIssues({ sort: 'last-seen', page: 1, pageSize: 50, now: later }).hiddenIgnored,
    ).toBe(0);
    expect(db.issue(1, later)?.status).toBe('unresolved');
  });
});

describe('resolved in the next release', () => {
  it('stays resolved for the releases seen so far, and regresses on a newer one (semver)', () => {
    const { db } = open();
    db.ingest([event({ release: 'app@1.0.0' })], NOW);
    db.ingest([event({ release: 'app@1.2.3' })], NOW);
    triage(db, [1], 'resolve-next-release');
    expect(db.issue(1, NOW)?.triage).toEqual({
      status: 'resolved',
      inNextRelease: { after: 'app@1.2.3', at: NOW },
    });
    expect(regressedBy(db, event({ release: 'app@1.2.3' }))).toBe(false);
    expect(regressedBy(db, event({ release: 'app@1.0.0' }))).toBe(false);
    expect(regressedBy(db, event({ release: '' }))).toBe(false);
    expect(shown(db)).toEqual([{ id: 1, status: 'resolved', regressed: false }]);
    expect(regressedBy(db, event({ release: 'app@1.10.0' }))).toBe(true);
    expect(shown(db)).toEqual([{ id: 1, status: 'unresolved', regressed: true }]);
  });

  it('by when a release was first seen, when they are not semver', () => {
    const { db } = open();
    db.ingest([event({ release: 'build-aaa' })], NOW - 60 * MINUTE);
    db.ingest([event({ release: 'build-bbb' })], NOW - 30 * MINUTE);
    triage(db, [1], 'resolve-next-release');
    expect(regressedBy(db, event({ release: 'build-aaa' }), NOW + MINUTE)).toBe(false);
    expect(regressedBy(db, event({ release: 'build-ccc' }), NOW + MINUTE)).toBe(true);
  });

  it('a plain resolve still regresses on any event', () => {
    const { db } = open();
    db.ingest([event()], NOW);
    triage(db, [1], 'resolve');
    expect(regressedBy(db, event())).toBe(true);
  });
});

describe('delete', () => {
  it('hides the issue at once, deletes its events in batches with all it had, and its fingerprint makes a new issue', () => {
    const { db, path } = open();
    for (let i = 0; i < 40; i++) {
      db.ingest(
        Array.from({ length: 50 }, (_, j) => event({ userKey: `id:${i * 50 + j}` })),
        NOW,
      );
    }
    db.ingest([event({ hashes: ['kept'], title: 'Kept' })], NOW);
    const someEvent = (1).toString(16).padStart(32, '0');
    expect(triage(db, [1], 'delete')).toEqual({ changed: 1, problems: [] });
    expect(shown(db).map((issue) => issue.id)).toEqual([2]);
    expect(db.issue(1, NOW)).toBeUndefined();
    expect(db.totals().issues).toBe(1);
    expect(db.deletesPending()).toBe(true);
    // A second delete of it changes nothing.
    expect(triage(db, [1], 'delete').changed).toBe(0);
    // Its fingerprint, seen now, makes a new issue (the old one's hashes went with the mark).
    const [again] = db.ingest([event()], NOW);
    expect(again).toMatchObject({ kind: 'stored', isNewIssue: true, issueId: 3 });

    let steps = 0;
    while (db.deleteStep()) steps++;
    // 2,000 events, 500 a batch: more than one transaction.
    expect(steps).toBeGreaterThanOrEqual(4);
    expect(db.deletesPending()).toBe(false);
    const raw = new Database(path, { readonly: true });
    try {
      const left = (table: string) =>
        (
          raw.prepare(`SELECT count(*) AS n FROM ${table} WHERE issue_id = 1`).get() as {
            n: number;
          }
        ).n;
      for (const table of [
        'events',
        'issue_hashes',
        'issue_hours',
        'issue_tags',
        'issue_users',
        'issue_releases',
        'issue_environments',
        'issue_urls',
      ]) {
        expect([table, left(table)]).toEqual([table, 0]);
      }
      expect(raw.prepare('SELECT count(*) AS n FROM issues WHERE id = 1').get()).toEqual({ n: 0 });
    } finally {
      raw.close();
    }
    expect(db.issueOfEvent(someEvent)).toBeUndefined();
    expect(shown(db).map((issue) => issue.id)).toEqual([3, 2]);
  });
});

describe('all matching a search', () => {
  it('applies to every issue the search matches, not only a page, and to nothing when the search cannot run', () => {
    const { db } = open();
    for (let i = 0; i < 60; i++) db.ingest([event({ hashes: [`h${i}`], title: `Bug ${i}` })], NOW);
    db.ingest([event({ hashes: ['w'], title: 'A warning', level: 'warning' })], NOW);
    const matching = (search: string) => ({
      kind: 'matching' as const,
      query: { search, now: NOW },
    });
    expect(db.triage(matching('level:error'), TRIAGE_ACTIONS.resolve, NOW)).toEqual({
      changed: 60,
      problems: [],
    });
    expect(titlesFound(db, 'is:unresolved')).toEqual([61]);
    expect(db.triage(matching('lvl:error'), TRIAGE_ACTIONS.delete, NOW)).toEqual({
      changed: 0,
      problems: ['unknown search key lvl'],
    });
    expect(db.totals().issues).toBe(61);
  });
});
