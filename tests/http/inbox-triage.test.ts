/**
 * Triage over real HTTP against the production build (issue 34): the list's bulk form (the
 * issues ticked, or all that the search matches, run again on the server), a mute from an
 * issue's page and what the pages say of it, the state-changing requests' rules (another site,
 * GET, bad input), and a delete that runs off the page thread.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ISSUES_PAGE_SIZE } from '#app/server/inbox/inbox-inputs';
import {
  openInboxDatabase,
  type PreparedEnvelope,
} from '#app/server/inbox/store/inbox-database.server';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { formAction, listed, page } from '#tests/support/inbox-html';
import { DATABASE_FILE, seededEvent, seedInbox, seedInto } from '#tests/support/seed-inbox';
import { until } from '#tests/support/wait-for';

const NOW = Date.now();
const ISSUES = ISSUES_PAGE_SIZE + 10;

/** More issues than a page holds: "Bug 0" … "Bug 59", the latest first; one is a warning. */
function seeds() {
  return Array.from({ length: ISSUES }, (_, n) =>
    seededEvent({
      message: `Bug ${n}`,
      type: 'Error',
      level: n === 0 ? 'warning' : 'error',
      at: NOW - (ISSUES - n) * 60_000,
    }),
  );
}

/** The issue ids the list's rows offer to tick, in order. */
function tickable(html: string): number[] {
  return [...html.matchAll(/<input[^>]*name="issueId"[^>]*>/g)]
    .filter((m) => m[0].includes('form="bulk-triage"'))
    .map((m) => Number(/value="(\d+)"/.exec(m[0])?.[1]));
}

describe('triage over HTTP', () => {
  let server: BuiltServer;
  let inboxDir: string;
  let action: string;

  beforeEach(async () => {
    inboxDir = seedInbox(seeds());
    server = await startBuiltServer({ MONITORING_INBOX_DIR: inboxDir });
    action = formAction((await page(server, '/errors')).html, 'Act on issues');
  });
  afterEach(() => server?.stop());

  const post = (body: string, headers: Record<string, string> = { Origin: server.url }) =>
    fetch(`${server.url}${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body,
      redirect: 'manual',
    });

  const statuses = () => {
    const db = new Database(join(inboxDir, DATABASE_FILE), { readonly: true });
    try {
      return db.prepare('SELECT status, count(*) AS n FROM issues GROUP BY status').all();
    } finally {
      db.close();
    }
  };

  it('resolves the issues ticked, and says so on the list it goes back to', async () => {
    const list = await page(server, '/errors');
    const [first, second] = tickable(list.html);
    expect(tickable(list.html)).toHaveLength(ISSUES_PAGE_SIZE);
    const answer = await post(`action=resolve&issueId=${first}&issueId=${second}`);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/errors?did=resolve&changed=2');
    const back = await page(server, answer.headers.get('location') as string);
    expect(back.html).toContain('2 issues resolved.');
    expect(listed((await page(server, '/errors?status=resolved')).html)).toEqual([
      'Error: Bug 59',
      'Error: Bug 58',
    ]);
  });

  it('applies to all that match the search, past the page, the search run again on the server', async () => {
    const answer = await post(
      'action=ignore-1h&scope=matching&q=level%3Aerror&sort=count&issueId=1',
    );
    expect(answer.status).toBe(303);
    // The filters stay; the one id sent along is not what it applies to.
    expect(answer.headers.get('location')).toBe(
      `/errors?q=level%3Aerror&sort=count&did=ignore-1h&changed=${ISSUES - 1}`,
    );
    expect(statuses()).toEqual([
      { status: 'ignored', n: ISSUES - 1 },
      { status: 'unresolved', n: 1 },
    ]);
    const list = await page(server, '/errors');
    expect(listed(list.html)).toEqual(['Error: Bug 0']);
    expect(list.html).toContain(`${ISSUES - 1} ignored issues hidden.`);
    const ignored = await page(server, '/errors?status=ignored');
    expect(ignored.html).toMatch(/Ignored until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
  });

  it('mutes from the issue page until 100 more events, and shows how many came so far', async () => {
    const issuePage = (await page(server, '/errors/issues/3')).html;
    action = formAction(issuePage, 'Ignore this issue');
    const answer = await post('action=ignore-100-events&issueId=3&from=issue');
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/errors/issues/3');
    seedInto(inboxDir, [
      seededEvent({ message: 'Bug 2', type: 'Error' }),
      seededEvent({ message: 'Bug 2', type: 'Error' }),
    ]);
    const { html } = await page(server, '/errors/issues/3');
    expect(html).toContain('Status: <span class="badge-status status-ignored">Ignored</span>');
    expect(html).toContain('Ignored until 100 more events (2 so far)');
    // Reopened from the issue page: back to the issue.
    const reopened = await post('action=unresolve&issueId=3&from=issue');
    expect(reopened.status).toBe(303);
    expect(reopened.headers.get('location')).toBe('/errors/issues/3');
    expect((await page(server, '/errors/issues/3')).html).toContain(
      'Status: <span class="badge-status status-unresolved">Unresolved</span>',
    );
  });

  it('changes nothing from another site, by GET, or with a bad form, and says why', async () => {
    const [first] = tickable((await page(server, '/errors')).html);
    const body = `action=resolve&issueId=${first}`;
    expect((await post(body, { Origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(body, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    const payload = encodeURIComponent(
      JSON.stringify({ data: { issueId: [String(first)], action: 'resolve' } }),
    );
    const get = await fetch(`${server.url}${action}?createServerFn&payload=${payload}`, {
      redirect: 'manual',
    });
    expect(get.status).toBe(405);
    const refusals: Array<[string, string | undefined]> = [
      [`action=bogus&issueId=${first}`, undefined],
      [`action=resolve&issueId=abc`, undefined],
      [
        `action=resolve&${Array.from({ length: ISSUES_PAGE_SIZE + 1 }, (_, i) => `issueId=${i + 1}`).join('&')}`,
        undefined,
      ],
      ['action=resolve', 'Tick at least one issue, or choose all that match the search.'],
      [
        `action=delete&issueId=${first}`,
        'Deleting cannot be undone: tick the box that confirms it.',
      ],
      [
        'action=delete&confirm=delete&scope=matching&q=lvl%3Aerror',
        'Cannot search: unknown search key lvl.',
      ],
      ['action=resolve&scope=matching&status=open', 'The search is not one the list offers.'],
    ];
    for (const [refused, reason] of refusals) {
      const answer = await post(refused);
      expect([refused, answer.status]).toEqual([refused, 400]);
      if (reason !== undefined) expect(await answer.text()).toBe(reason);
    }
    expect(statuses()).toEqual([{ status: 'unresolved', n: ISSUES }]);
  });
});

describe('deleting an issue of many events', () => {
  const EVENTS = 80_000;
  let server: BuiltServer;
  let inboxDir: string;

  beforeEach(async () => {
    // One issue of EVENTS events (small payloads but its latest), and one other.
    const big = seededEvent({ message: 'Big one', type: 'Error' });
    const event = big.event as NonNullable<PreparedEnvelope['event']>;
    inboxDir = seedInbox([seededEvent({ message: 'Other', type: 'Error' })], {
      maxEvents: 100_000,
    });
    // A thousand a transaction, as the ingest thread batches them.
    const db = openInboxDatabase(join(inboxDir, DATABASE_FILE), { maxEvents: 100_000 });
    for (let batch = 0; batch < EVENTS / 1_000; batch++) {
      db.ingest(
        Array.from({ length: 1_000 }, (_, i) => ({
          ...big,
          event: {
            ...event,
            eventId: `e${(batch * 1_000 + i).toString(16).padStart(31, '0')}`,
            payload: '{}',
          },
        })),
        Date.now(),
      );
    }
    db.close();
    server = await startBuiltServer({
      MONITORING_INBOX_DIR: inboxDir,
      MONITORING_INBOX_MAX_EVENTS: '100000',
    });
  }, 300_000);
  afterEach(() => server?.stop());

  it('runs off the page thread: the issue is gone from the pages at once, pages answer while its events go, and its fingerprint makes a new issue', async () => {
    const eventsOfBig = () => {
      const db = new Database(join(inboxDir, DATABASE_FILE), { readonly: true });
      try {
        return (
          db.prepare('SELECT count(*) AS n FROM events WHERE issue_id = 2').get() as { n: number }
        ).n;
      } finally {
        db.close();
      }
    };
    expect(eventsOfBig()).toBe(EVENTS);
    const issuePage = await page(server, '/errors/issues/2');
    expect(issuePage.html).toContain('Error: Big one');
    const action = formAction(issuePage.html, 'Delete this issue');
    const answer = await fetch(`${server.url}${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url },
      body: 'action=delete&confirm=delete&issueId=2&from=issue',
      redirect: 'manual',
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/errors?did=delete&changed=1');
    // The answer does not wait for the events, which go in batches (about a second for these).
    // Pages meanwhile: the issue is gone from them while its events are still being deleted.
    const answered: number[] = [];
    const listsSeen: string[][] = [];
    let whileDeleting = 0;
    await until(
      'the issue’s events to be deleted',
      async () => {
        const left = eventsOfBig();
        const list = await page(server, '/errors');
        answered.push(list.status, (await page(server, '/errors/issues/2')).status);
        listsSeen.push(listed(list.html));
        if (left === 0) return true;
        whileDeleting++;
        return false;
      },
      { timeoutMs: 120_000, everyMs: 0 },
    );
    // The issue was gone from every list, from the first.
    expect(listsSeen).toEqual(listsSeen.map(() => ['Error: Other']));
    console.log(`delete: ${whileDeleting} list pages answered while the events went`);
    expect(whileDeleting).toBeGreaterThan(0);
    const lists = answered.filter((_, i) => i % 2 === 0);
    const issuePages = answered.filter((_, i) => i % 2 === 1);
    expect(lists.every((status) => status === 200)).toBe(true);
    expect(issuePages.every((status) => status === 404)).toBe(true);
    // The same error again: a new issue of one event.
    seedInto(inboxDir, [seededEvent({ message: 'Big one', type: 'Error' })], {
      maxEvents: 100_000,
    });
    const list = await page(server, '/errors');
    expect(listed(list.html)).toEqual(['Error: Big one', 'Error: Other']);
    // Of one event: not the 80,001st of the old one.
    expect(list.html).toMatch(/Error: Big one<\/a>.*?<p class="issue-count">1 event</s);
  }, 300_000);
});
