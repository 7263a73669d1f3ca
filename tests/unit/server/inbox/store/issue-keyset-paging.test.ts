/**
 * listIssues' keyset paging (`after`, the read API's cursor): for every sort, pages that start
 * after the last issue of the one before walk every issue exactly once, ties included, while the
 * count of matches stays the whole search's; and an issue that arrives at the top meanwhile
 * shifts nothing.
 */
import { describe, expect, it } from 'vitest';
import { ISSUE_ORDER, ISSUE_SORTS } from '#app/server/inbox/inbox-inputs';
import type { InboxDatabase } from '#app/server/inbox/store/inbox-database.server';
import type { IssueSort } from '#app/server/inbox/store/inbox-reads.server';
import { inboxDatabases, preparedEvents } from '#tests/support/inbox-store';

const NOW = Date.UTC(2026, 10, 28, 12);
const prepared = preparedEvents({
  timestamp: NOW,
  url: 'http://localhost:3000/',
  culprit: 'app/routes/index.tsx',
});
const event = (title: string, timestamp: number) =>
  prepared({
    timestamp,
    title,
    level: title.startsWith('Warn') ? 'warning' : 'error',
    hashes: [title],
  });
const { open } = inboxDatabases('inbox-keyset-', 1000);

/**
 * Seven issues whose sort values tie in pairs: the same last seen, first seen or count, so only
 * the id tells them apart.
 */
function seeded(): InboxDatabase {
  const { db } = open();
  const at = (minutes: number) => NOW - minutes * 60_000;
  const plan: Array<[string, number[]]> = [
    ['Error A', [30, 10]],
    ['Error B', [30, 10]],
    ['Error C', [20]],
    ['Warn D', [20]],
    ['Error E', [50, 40, 5]],
    ['Error F', [5]],
    ['Warn G', [60, 1]],
  ];
  for (const [title, minutes] of plan) {
    for (const m of minutes) db.ingest([event(title, at(m))], NOW);
  }
  return db;
}

/** Walks the search page by page, each from the last issue of the one before, as the API does. */
function walk(db: InboxDatabase, sort: IssueSort, pageSize: number, search?: string) {
  const seen: number[] = [];
  let after: number[] | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const list = db.listIssues({
      sort,
      page: 1,
      pageSize,
      now: NOW,
      ...(search === undefined ? {} : { search }),
      ...(after === undefined ? {} : { after }),
    });
    seen.push(...list.issues.map((issue) => issue.id));
    const last = list.issues[list.issues.length - 1];
    if (list.issues.length < pageSize || !last) return { seen, total: list.total };
    after = ISSUE_ORDER[sort].map((field) => last[field]);
  }
  throw new Error('the walk never ended');
}

describe('keyset paging through the issues', () => {
  it.each(ISSUE_SORTS.flatMap((sort) => [1, 2, 3].map((size) => [sort, size] as const)))(
    'sorted by %s, %i at a time: every issue once, in the order of one long page',
    (sort, size) => {
      const db = seeded();
      const whole = db.listIssues({ sort, page: 1, pageSize: 50, now: NOW });
      expect(whole.total).toBe(7);
      const { seen, total } = walk(db, sort, size);
      expect(seen).toEqual(whole.issues.map((issue) => issue.id));
      expect(total).toBe(7);
    },
  );

  it('pages a search, counting all its matches on every page', () => {
    const db = seeded();
    const { seen, total } = walk(db, 'count', 1, 'level:warning');
    expect(seen).toHaveLength(2);
    expect(total).toBe(2);
  });

  it('is not shifted by an issue that arrives at the top between two pages', () => {
    const db = seeded();
    const first = db.listIssues({ sort: 'last-seen', page: 1, pageSize: 3, now: NOW });
    db.ingest([event('Error New', NOW)], NOW);
    const last = first.issues[2];
    if (!last) throw new Error('no third issue');
    const rest = db.listIssues({
      sort: 'last-seen',
      page: 1,
      pageSize: 50,
      now: NOW,
      after: ISSUE_ORDER['last-seen'].map((field) => last[field]),
    });
    const walked = [...first.issues, ...rest.issues].map((issue) => issue.title);
    expect(walked).toHaveLength(7);
    expect(new Set(walked).size).toBe(7);
    expect(walked).not.toContain('Error New');
  });
});
