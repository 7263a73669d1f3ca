/**
 * Who an issue hit and its events, over real HTTP against the production build: browser events
 * sent through the tunnel as the SDK sends them, then read on /errors and the issue's page.
 * Three distinct users and a repeat are "3 users"; a browser event's tags are the ones Sentry
 * derives (browser, os, handled, mechanism, user, …) with its handled flag and trace id; an
 * issue's events are listed newest first, a page at a time; an issue's users stop at the cap.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import {
  MAX_USERS_PER_ISSUE,
  type PreparedEnvelope,
} from '#app/server/inbox/store/inbox-database.server';
import { prepareEnvelope } from '#app/server/inbox/store/prepare-envelope';
import { envelopeBytes, errorEvent } from '#tests/fixtures/inbox-envelopes';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { eventId, send } from '#tests/support/envelopes';
import { withoutTextSeparators } from '#tests/support/html-text';
import { seedInto } from '#tests/support/seed-inbox';

let server: BuiltServer;
let inboxDir: string;
/** A thousand and one users' events of one issue, prepared as the ingest thread prepares them. */
const manyUsers: PreparedEnvelope[] = [];

beforeAll(async () => {
  // Before the server starts: the work takes seconds, longer than a kept-alive connection idles.
  for (let n = 0; n <= MAX_USERS_PER_ISSUE; n++) {
    const result = await prepareEnvelope(
      envelopeOf(browserError('ManyUsersError', { id: `random-${n}` })),
      Date.now(),
    );
    if (!result.ok) throw new Error(result.reason);
    manyUsers.push(result.prepared);
  }
  inboxDir = join(mkdtempSync(join(tmpdir(), 'inbox-users-')), 'inbox');
  server = await startBuiltServer({ MONITORING_INBOX_DIR: inboxDir });
});
afterAll(() => server?.stop());

/**
 * A browser error as the SDK sends it: its page's User-Agent, its mechanism, its trace. Its
 * type names its issue (the stack is the same for all: the type is what groups them apart).
 */
function browserError(type: string, user?: Record<string, unknown>): Record<string, unknown> {
  const id = eventId();
  const event = errorEvent({ eventId: id, type, message: 'boom', timestamp: Date.now() / 1000 });
  const [thrown] = (event.exception as { values: Array<Record<string, unknown>> }).values;
  return {
    ...event,
    request: {
      url: 'http://localhost:3000/sentry-example-page',
      headers: { 'User-Agent': BROWSER_USER_AGENT },
    },
    exception: {
      values: [
        { ...thrown, mechanism: { type: 'auto.browser.global_handlers.onerror', handled: false } },
      ],
    },
    contexts: {
      trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' },
    },
    transaction: '/sentry-example-page',
    ...(user ? { user } : {}),
  };
}

function envelopeOf(event: Record<string, unknown>): Uint8Array {
  return envelopeBytes({ event_id: event.event_id, dsn: LOCAL_INBOX_DSN }, [
    { header: { type: 'event' }, payload: event },
  ]);
}

/** Through the tunnel; it answers 200 once the event is stored. */
async function report(event: Record<string, unknown>): Promise<void> {
  const answer = await send(`${server.url}/monitoring?o=0&p=1`, { body: envelopeOf(event) });
  expect(answer.status, answer.text).toBe(200);
}

async function page(path: string): Promise<{ status: number; html: string }> {
  const response = await fetch(`${server.url}${path}`, { redirect: 'manual' });
  return { status: response.status, html: withoutTextSeparators(await response.text()) };
}

/** The issue page's path for a stored event (from /errors/<event id>'s redirect). */
async function issueOf(id: string): Promise<string> {
  const response = await fetch(`${server.url}/errors/${id}`, { redirect: 'manual' });
  const location = response.headers.get('location') ?? '';
  const path = /^(?:https?:\/\/[^/]+)?(\/errors\/issues\/\d+)/.exec(location)?.[1];
  if (!path) throw new Error(`no issue for ${id}: ${response.status} ${location}`);
  return path;
}

/** The list row of the issue titled `title`. */
function rowOf(html: string, title: string): string {
  const start = html.indexOf(`class="issue-title">${title}`);
  expect(start, title).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf('</li>', start));
}

/** The event ids an issue page's list of events links to, in order. */
function listedEvents(html: string): string[] {
  const list = /<ol class="event-list"[^>]*>(.*?)<\/ol>/s.exec(html)?.[1] ?? '';
  return [...list.matchAll(/[?&;]event=([0-9a-f]{32})/g)].map((m) => m[1] ?? '');
}

describe('who was hit', () => {
  it('counts three distinct users and a repeat as "3 users", in the list and on the issue', async () => {
    const users = [{ id: 'u-1' }, { email: 'b@example.com' }, { username: 'carol' }, { id: 'u-1' }];
    const events = users.map((user) => browserError('ThreeUsersError', user));
    // One more with no user: it hits no one Sentry could name.
    events.push(browserError('ThreeUsersError'));
    for (const event of events) await report(event);

    const list = await page('/errors');
    const row = rowOf(list.html, 'ThreeUsersError: boom');
    expect(row).toContain('5 events');
    expect(row).toContain('<span class="issue-users">3 users</span>');

    const issue = await page(await issueOf(events[0]?.event_id as string));
    expect(issue.html).toContain('<dt>Users</dt><dd>3 users</dd>');
  });

  it('shows a browser event’s tags as Sentry derives them, its handled flag and its trace id', async () => {
    const event = browserError('TaggedError', { email: 'dora@example.com' });
    await report(event);
    const { html } = await page(
      `${await issueOf(event.event_id as string)}?event=${event.event_id}`,
    );
    const tags = /aria-label="Tags of this event">(.*?)<\/dl>/s.exec(html)?.[1] ?? '';
    const pairs = [...tags.matchAll(/<dt>([^<]*)<\/dt><dd>([^<]*)<\/dd>/g)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(pairs).toEqual([
      ['browser', 'Chrome 156'],
      ['os', 'Linux'],
      ['url', '/sentry-example-page'],
      ['release', 'app@1.0.0'],
      ['environment', 'production'],
      ['level', 'error'],
      ['handled', 'no'],
      ['mechanism', 'auto.browser.global_handlers.onerror'],
      ['transaction', '/sentry-example-page'],
      ['user', 'email:dora@example.com'],
      ['runtime', 'browser'],
    ]);
    expect(html).toContain('<dt>Handled</dt><dd class="unhandled">no (unhandled)</dd>');
    expect(html).toContain(
      '<dt>Trace id</dt><dd><code class="event-id">4bf92f3577b34da6a3ce929d0e0e4736</code></dd>',
    );
    // The issue's tag panel counts the same keys.
    for (const key of ['handled', 'mechanism', 'Route', 'user']) {
      expect(html).toContain(`<section class="tag-key" aria-label="${key}">`);
    }
  });

  it(`keeps at most ${MAX_USERS_PER_ISSUE} users an issue, and says "1,000+ users" past it`, async () => {
    // Written beside the running server, as its ingest thread would write them.
    seedInto(inboxDir, manyUsers.slice(0, MAX_USERS_PER_ISSUE));
    const first = manyUsers[0]?.event?.eventId as string;
    const issuePath = await issueOf(first);
    expect((await page(issuePath)).html).toContain('<dt>Users</dt><dd>1,000 users</dd>');

    seedInto(inboxDir, manyUsers.slice(MAX_USERS_PER_ISSUE));
    const issue = await page(issuePath);
    expect(issue.html).toContain('<dt>Users</dt><dd>1,000+ users</dd>');
    expect(rowOf((await page('/errors')).html, 'ManyUsersError: boom')).toContain(
      '<span class="issue-users">1,000+ users</span>',
    );
  }, 60_000);
});

describe('an issue’s events', () => {
  it('lists them newest first, 20 a page, each linking to its event, with how long ago', async () => {
    const sent: string[] = [];
    for (let n = 0; n < 23; n++) {
      const event = browserError('PagedError');
      await report(event);
      sent.push(event.event_id as string);
    }
    const newestFirst = [...sent].reverse();
    const issuePath = await issueOf(sent[0] as string);
    const first = await page(issuePath);
    expect(first.status).toBe(200);
    expect(listedEvents(first.html)).toEqual(newestFirst.slice(0, 20));
    // Relative, with the exact time in the <time>.
    expect(first.html).toMatch(
      /<time dateTime="\d{4}-\d\d-\d\dT[\d:.]+Z" title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC">(just now|\d+ seconds? ago)<\/time>/,
    );
    // The event on view (the latest) is marked in the list.
    expect(first.html).toMatch(
      new RegExp(`<a aria-current="page" href="/errors/issues/\\d+\\?event=${newestFirst[0]}"`),
    );

    const older = /href="([^"]*before=[0-9a-f]{32}[^"]*)"[^>]*>Older events →/.exec(
      first.html,
    )?.[1];
    expect(older).toBeDefined();
    const second = await page((older as string).replaceAll('&amp;', '&'));
    expect(second.status).toBe(200);
    expect(listedEvents(second.html)).toEqual(newestFirst.slice(20));
    expect(second.html).not.toContain('Older events →');
    expect(second.html).toContain('Newest events');

    // A page that starts from an event this issue does not have is the not-found page.
    expect((await page(`${issuePath}?before=${'0'.repeat(32)}`)).status).toBe(404);
  }, 60_000);
});
