/**
 * Local inbox mode over real HTTP against the production build: /errors lists issues from the
 * inbox database (seeded before the server starts, through the store's own ingest), filters,
 * searches, sorts and pages them; an issue's page shows its events; resolve, ignore and reopen
 * are guarded form POSTs; an event id redirects to its issue; with SENTRY_DSN the pages are 404.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { formAction, listed, page } from '#tests/support/inbox-html';
import { seededEvent, seededSessions, seedInbox, seedInto } from '#tests/support/seed-inbox';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.now();
const HOSTILE = '<script>window.__pwned=1</script>';
const id = (digit: string) => digit.repeat(32);

/**
 * Three issues: a busy one in production (3 events, 5 to 1 hours ago), one in development (2,
 * two days and ten minutes ago), an old one on a 1.10 release (10 days ago).
 */
function seeds() {
  return [
    ...[5, 3, 1].map((hoursAgo, n) =>
      seededEvent({
        eventId: id(String(n + 1)),
        type: 'TypeError',
        message: `x is undefined ${HOSTILE}`,
        url: 'http://localhost:3000/checkout',
        release: 'app@1.4.0',
        culprit: 'checkout.js in pay',
        at: NOW - hoursAgo * HOUR,
        tags: [
          ['browser', n === 0 ? 'Firefox 140' : 'Chrome 156'],
          ['os', 'Linux'],
          ['environment', 'production'],
        ],
      }),
    ),
    ...[2 * DAY, 10 * 60_000].map((ago, n) =>
      seededEvent({
        eventId: id(n === 0 ? 'a' : '9'),
        type: 'RangeError',
        message: 'too far',
        environment: 'development',
        url: 'http://localhost:3000/about',
        culprit: 'about.js in scroll',
        at: NOW - ago,
      }),
    ),
    seededEvent({
      eventId: id('b'),
      type: 'SyntaxError',
      message: 'an old one',
      release: '1.10',
      culprit: 'legacy.js in parse',
      at: NOW - 10 * DAY,
      event: {
        // Relay's formatted message and a server SDK's source lines, on the thread's stack.
        exception: { values: [{ type: 'SyntaxError', value: 'an old one', thread_id: 1 }] },
        threads: {
          values: [
            {
              id: 1,
              name: 'MainThread',
              crashed: true,
              stacktrace: {
                frames: [
                  {
                    filename: 'app/legacy.py',
                    function: 'parse',
                    lineno: 7,
                    in_app: true,
                    pre_context: ['def parse(text):'],
                    context_line: '    return json.loads(text)',
                    post_context: [''],
                  },
                ],
              },
            },
          ],
        },
      },
    }),
    seededSessions(
      [
        { ...RELEASE, started: 8, errored: 0, unhandled: 0, crashed: 0, abnormal: 0 },
        {
          ...RELEASE,
          started: 0,
          errored: 1,
          unhandled: 0,
          crashed: 1,
          abnormal: 0,
          sessionId: 's1',
        },
        {
          ...RELEASE,
          started: 0,
          errored: 1,
          unhandled: 1,
          crashed: 0,
          abnormal: 0,
          sessionId: 's2',
        },
      ],
      { session: 10 },
    ),
    { sessions: [], counts: { span: 4, client_report: 1 } },
  ];
}

const RELEASE = { release: 'app@1.4.0', environment: 'production' };

const TYPE_ERROR = `TypeError: x is undefined ${HOSTILE.replaceAll('<', '&lt;').replaceAll('>', '&gt;')}`;

describe('the list and an issue’s page', () => {
  let server: BuiltServer;
  let inboxDir: string;

  beforeAll(async () => {
    inboxDir = seedInbox(seeds());
    server = await startBuiltServer({ MONITORING_INBOX_DIR: inboxDir });
  });
  afterAll(() => server?.stop());

  it('says at start where the inbox is and where to read it', () => {
    expect(server.output()).toContain(
      `errors are kept in ${inboxDir}; read them at ${server.url}/errors`,
    );
  });

  it('lists one row per issue, last seen first, with what, where, how often, when, environment and release', async () => {
    const { status, headers, html } = await page(server, '/errors');
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(listed(html)).toEqual(['RangeError: too far', TYPE_ERROR, 'SyntaxError: an old one']);
    expect(html).toContain('3 issues, 6 events (6 stored).');
    const start = html.indexOf(`class="issue-title">${TYPE_ERROR}`);
    const row = html.slice(start, html.indexOf('</li>', start));
    expect(row).toContain('checkout.js in pay');
    expect(row).toContain('3 events');
    expect(row).toContain(`<span class="env env-production">production</span>`);
    expect(row).toContain('app@1.4.0');
    expect(row).toContain(
      `${new Date(NOW - 5 * HOUR).toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    );
    expect(row).toContain('aria-label="3 events in the last 24 hours, at most 1 in an hour"');
    expect(html).toContain('<span class="env env-development">development</span>');
  });

  it('renders hostile text as text, never as markup', async () => {
    const { html } = await page(server, '/errors');
    expect(html).not.toContain(HOSTILE);
    expect((await page(server, '/errors/issues/1')).html).not.toContain(HOSTILE);
  });

  it('shows release health and counts the items it does not list', async () => {
    const { html } = await page(server, '/errors');
    expect(html).toMatch(
      // Sessions, then healthy, errored, unhandled and crashed (adding up to them), crash-free.
      /<td>app@1\.4\.0<\/td><td><span class="env env-production">production<\/span><\/td><td>8<\/td><td>6<\/td><td>0<\/td><td>1<\/td><td>1<\/td><td>87\.5%<\/td>/,
    );
    // Updates, not sessions: the table's 8 sessions sent 10 of them.
    expect(html).toContain('Also received: 1 client report, 10 session updates, 4 span items.');
  });

  it.each([
    ['environment=development', ['RangeError: too far']],
    ['release=1.10', ['SyntaxError: an old one']],
    ['q=checkout', [TYPE_ERROR]], // the page URL
    ['q=scroll', ['RangeError: too far']], // the culprit
    ['q=old+one', ['SyntaxError: an old one']], // the title
    ['q=no+such+thing', []],
    ['sort=count', [TYPE_ERROR, 'RangeError: too far', 'SyntaxError: an old one']],
    ['sort=first-seen', [TYPE_ERROR, 'RangeError: too far', 'SyntaxError: an old one']],
    // What the form sends with every field left as it is.
    [
      'q=&status=&environment=&release=&sort=last-seen',
      ['RangeError: too far', TYPE_ERROR, 'SyntaxError: an old one'],
    ],
  ])('filters, searches and sorts: ?%s', async (query, expected) => {
    const { status, html } = await page(server, `/errors?${query}`);
    expect(status).toBe(200);
    expect(listed(html)).toEqual(expected);
    if (expected.length === 0) expect(html).toContain('No issues match these filters.');
  });

  it('keeps the filters in the form it shows', async () => {
    const { html } = await page(server, '/errors?release=1.10&q=old&sort=count');
    expect(html).toMatch(/<input type="search"[^>]*name="q" value="old"/);
    expect(html).toMatch(/<option value="1\.10" selected="">1\.10<\/option>/);
    expect(html).toMatch(/<option value="count" selected="">Events<\/option>/);
  });

  it.each([
    '/errors?sort=bogus',
    '/errors?status=open',
    `/errors?environment=${'e'.repeat(201)}`,
    '/errors?page=0',
    '/errors?page=2',
    '/errors/issues/99',
    '/errors/issues/abc',
    '/errors/issues/01',
    `/errors/issues/1?event=${id('a')}`, // another issue's event
    '/errors/issues/1?event=nope',
    `/errors/${id('f')}`,
    '/errors/no%20such%20id',
    '/errors/issues',
  ])('%s is the not-found page', async (path) => {
    const { status, html } = await page(server, path);
    expect(status).toBe(404);
    expect(html).toContain('<h1>Page not found</h1>');
  });

  it('redirects an event’s own address to its issue’s page with that event, dashed or upper-case', async () => {
    for (const given of [id('2'), '22222222-2222-2222-2222-222222222222', id('2').toUpperCase()]) {
      const { status, headers } = await page(server, `/errors/${given}`);
      expect(status).toBe(307);
      expect(headers.get('location')).toBe(`/errors/issues/1?event=${id('2')}`);
    }
  });

  it('shows an issue: its latest event, the way to older ones, 30 days, tag shares, releases and the workflow', async () => {
    const { status, headers, html } = await page(server, '/errors/issues/1');
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(html).toContain(`<h1 class="issue-headline">${TYPE_ERROR}</h1>`);
    expect(html).toContain('Latest event');
    expect(html).toContain(`<code class="event-id">${id('3')}</code>`);
    expect(html).toContain(`href="/errors/issues/1?event=${id('2')}"`);
    expect(html).toContain('aria-label="3 events in the last 30 days, most on');
    expect(html).toMatch(/Browser.*Chrome 156.*67%.*Firefox 140.*33%/s);
    expect(html).toMatch(/First release<\/dt><dd>app@1\.4\.0/);
    expect(html).toContain(
      'Status: <span class="badge-status status-unresolved">Unresolved</span>',
    );
    expect(html).toMatch(/<button type="submit">Resolve<\/button>/);
    expect(html).toMatch(/<button type="submit">Ignore<\/button>/);
    // The stack as it came (no map in this build for the seeded chunk), and the breadcrumbs.
    expect(html).toContain('handleThrowClick');
    expect(html).toContain('(no map for this file)');
    expect(html).toContain('button#throw-client');
  });

  it('steps to an older event and back', async () => {
    const older = await page(server, `/errors/issues/1?event=${id('2')}`);
    expect(older.status).toBe(200);
    expect(older.html).toContain(`<code class="event-id">${id('2')}</code>`);
    expect(older.html).toContain(`href="/errors/issues/1?event=${id('1')}"`);
    expect(older.html).toContain(`href="/errors/issues/1?event=${id('3')}"`);
    expect(older.html).not.toContain('Latest event');
  });

  it('shows a message as Relay formatted it, a thread’s stack, and the SDK’s source lines', async () => {
    const { html } = await page(server, '/errors/issues/3');
    expect(html).toContain('The stack of thread MainThread (crashed)');
    expect(html).toMatch(/<code>parse<\/code> at <code>app\/legacy\.py:7<\/code>/);
    expect(html).toMatch(
      /<mark class="source-line current"><span class="line-number">7<\/span> {4}return json\.loads\(text\)/,
    );
  });

  it("marks the navigation's inbox link current on the inbox's pages, and only there", async () => {
    const inboxLink = async (path: string) => {
      const { html } = await page(server, path);
      const link = html.match(/<a [^>]*href="\/errors"[^>]*>Error inbox<\/a>/)?.[0];
      expect(link, path).toBeDefined();
      return link;
    };
    expect(await inboxLink('/errors')).toContain('aria-current="page"');
    expect(await inboxLink('/errors/issues/1')).toContain('aria-current="page"');
    expect(await inboxLink('/about')).not.toContain('aria-current');
  });

  it('shows an event that arrives while the server runs', async () => {
    seedInto(inboxDir, [seededEvent({ eventId: id('c'), message: 'late' })]);
    const { html } = await page(server, '/errors');
    expect(listed(html)[0]).toBe('Error: late');
  });
});

describe('paging', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    const events = Array.from({ length: 120 }, (_, n) =>
      seededEvent({
        eventId: n.toString(16).padStart(32, '0'),
        message: `issue number ${n}`,
        environment: n % 2 === 0 ? 'production' : 'development',
        at: NOW - (120 - n) * 1000,
      }),
    );
    server = await startBuiltServer({ MONITORING_INBOX_DIR: seedInbox(events) });
  });
  afterAll(() => server?.stop());

  it('shows 50 issues a page and pages to the last, the filters kept', async () => {
    const first = await page(server, '/errors');
    expect(listed(first.html)).toHaveLength(50);
    expect(listed(first.html)[0]).toBe('Error: issue number 119');
    expect(first.html).toContain('Page 1 of 3 (120 issues)');
    const last = await page(server, '/errors?page=3');
    expect(listed(last.html)).toHaveLength(20);
    expect(listed(last.html).at(-1)).toBe('Error: issue number 0');
    expect((await page(server, '/errors?page=4')).status).toBe(404);

    const filtered = await page(server, '/errors?environment=development&page=2');
    expect(listed(filtered.html)).toHaveLength(10);
    expect(filtered.html).toContain('Page 2 of 2 (60 issues)');
    expect(filtered.html).toContain('href="/errors?environment=development&amp;page=1"');
  });
});

describe('resolve, ignore and reopen', () => {
  let server: BuiltServer;
  let inboxDir: string;

  beforeEach(async () => {
    inboxDir = seedInbox(seeds());
    server = await startBuiltServer({ MONITORING_INBOX_DIR: inboxDir });
  });
  afterEach(() => server?.stop());

  async function statusAction(): Promise<string> {
    return formAction((await page(server, '/errors/issues/1')).html, 'Resolve this issue');
  }

  const post = (action: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body,
      redirect: 'manual',
    });

  const statusOf = async (issue: number) =>
    /Status: <span class="badge-status status-(\w+)">/.exec(
      (await page(server, `/errors/issues/${issue}`)).html,
    )?.[1];

  it('resolves with a 303 back to the page, which then offers to reopen', async () => {
    const action = await statusAction();
    const answer = await post(action, 'issueId=1&from=issue&action=resolve', {
      Origin: server.url,
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/errors/issues/1');
    const { html } = await page(server, '/errors/issues/1');
    expect(html).toContain('Status: <span class="badge-status status-resolved">Resolved</span>');
    expect(html).toMatch(/<button type="submit">Reopen<\/button>/);
    expect(listed((await page(server, '/errors?status=resolved')).html)).toEqual([TYPE_ERROR]);
    // Back to the event on view when one was named.
    const back = await post(action, `issueId=1&from=issue&action=unresolve&event=${id('2')}`, {
      Origin: server.url,
    });
    expect(back.headers.get('location')).toBe(`/errors/issues/1?event=${id('2')}`);
    expect(await statusOf(1)).toBe('unresolved');
  });

  it('hides an ignored issue from the list by default, counting it, and shows it on asking', async () => {
    const answer = await post(await statusAction(), 'issueId=1&from=issue&action=ignore', {
      Origin: server.url,
    });
    expect(answer.status).toBe(303);
    const { html } = await page(server, '/errors');
    expect(listed(html)).toEqual(['RangeError: too far', 'SyntaxError: an old one']);
    expect(html).toContain('1 ignored issue hidden.');
    expect(listed((await page(server, '/errors?status=ignored')).html)).toEqual([TYPE_ERROR]);
    expect(listed((await page(server, '/errors?status=all')).html)).toHaveLength(3);
  });

  it('changes nothing from another site, by GET, or with a bad form', async () => {
    const action = await statusAction();
    expect(
      (
        await post(action, 'issueId=1&from=issue&action=resolve', {
          Origin: 'https://evil.example',
        })
      ).status,
    ).toBe(403);
    // What an <img> or a link on another site can send: no Origin, at most Sec-Fetch-Site.
    expect(
      (
        await post(action, 'issueId=1&from=issue&action=resolve', {
          'Sec-Fetch-Site': 'cross-site',
        })
      ).status,
    ).toBe(403);
    const payload = encodeURIComponent(
      JSON.stringify({ data: { issueId: ['1'], from: 'issue', action: 'resolve' } }),
    );
    const get = await fetch(`${server.url}${action}?createServerFn&payload=${payload}`, {
      redirect: 'manual',
    });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(
      (await post(action, 'issueId=1&from=issue&action=bogus', { Origin: server.url })).status,
    ).toBe(400);
    expect(
      (await post(action, 'issueId=99&from=issue&action=resolve', { Origin: server.url })).status,
    ).toBe(404);
    expect(await statusOf(1)).toBe('unresolved');
  });

  it('marks a resolved issue regressed when a new event of it arrives, in the list and on its page', async () => {
    await post(await statusAction(), 'issueId=1&from=issue&action=resolve', { Origin: server.url });
    expect((await page(server, '/errors')).html).not.toContain('Regressed');
    seedInto(inboxDir, [
      seededEvent({
        eventId: id('d'),
        type: 'TypeError',
        message: `x is undefined ${HOSTILE}`,
        url: 'http://localhost:3000/checkout',
      }),
    ]);
    const list = await page(server, '/errors');
    expect(list.html).toMatch(
      /<li class="issue-row regressed"[^>]*>.*?TypeError: x is undefined.*?<span class="badge-status regressed">Regressed<\/span>/s,
    );
    const issue = await page(server, '/errors/issues/1');
    expect(issue.html).toContain(
      'Status: <span class="badge-status regressed">Regressed</span> <span class="badge-status status-unresolved">Unresolved</span>',
    );
  });
});

describe('clearing the inbox', () => {
  let server: BuiltServer;

  beforeEach(async () => {
    server = await startBuiltServer({ MONITORING_INBOX_DIR: seedInbox(seeds()) });
  });
  afterEach(() => server?.stop());

  async function clearForm(): Promise<{ action: string; count: number }> {
    const { html } = await page(server, '/errors?confirm=clear');
    const count = Number(/Delete all (\d+) issues, their events/.exec(html)?.[1]);
    return { action: formAction(html, 'Clear the inbox'), count };
  }

  const post = (action: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body,
      redirect: 'manual',
    });

  it('asks first: the list page itself has only a link to the confirmation', async () => {
    const { html } = await page(server, '/errors');
    expect(html).toContain('Clear the inbox…');
    expect(html).not.toContain('class="inbox-confirm"');
  });

  it('deletes nothing without the confirmation or from another site', async () => {
    const { action, count } = await clearForm();
    expect(count).toBe(3);
    expect((await post(action, 'confirm=yes')).status).toBe(400);
    expect((await post(action, 'confirm=clear', { Origin: 'https://evil.example' })).status).toBe(
      403,
    );
    expect((await post(action, 'confirm=clear', { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(
      403,
    );
    expect(listed((await page(server, '/errors')).html)).toHaveLength(3);
  });

  it('deletes every issue on the confirmed POST and says how many', async () => {
    const { action } = await clearForm();
    const response = await post(action, 'confirm=clear', { Origin: server.url });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/errors?cleared=3');
    const { html } = await page(server, '/errors?cleared=3');
    expect(html).toContain('Inbox cleared: 3 issues deleted.');
    expect(html).toContain('No errors captured yet.');
    expect(html).toContain('No sessions received yet.');
    // Example routes are off here: the page says how to turn them on.
    expect(html).toContain(
      'To make one, run <code>npm run dev</code>, or start with <code>ENABLE_EXAMPLE_ROUTES=1</code>, and use the buttons of <code>/sentry-example-page</code>.',
    );
  });
});

describe('a store that cannot be opened', () => {
  let server: BuiltServer;
  let blocker: string;

  beforeAll(async () => {
    // The inbox directory would have to be inside a regular file.
    blocker = join(mkdtempSync(join(tmpdir(), 'inbox-broken-')), 'a-file');
    writeFileSync(blocker, 'not a directory');
    server = await startBuiltServer({ MONITORING_INBOX_DIR: join(blocker, 'inbox') });
  });
  afterAll(() => server?.stop());

  it('says on /errors and on an issue’s page that storage is failing, and why', async () => {
    for (const path of ['/errors', '/errors/issues/1']) {
      const { status, html } = await page(server, path);
      expect(status).toBe(200);
      expect(html).toContain('The inbox’s storage is failing');
      expect(html).toMatch(
        /Error reports cannot be stored or shown: <span class="problem-reason">the inbox database .*a-file\/inbox\/inbox\.sqlite cannot be opened: .*ENOTDIR/,
      );
      expect(html).not.toContain('No errors captured yet');
    }
  });
});

describe('with a Sentry DSN', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer({
      SENTRY_DSN: 'https://publickey@o1.ingest.us.sentry.io/2',
      MONITORING_INBOX_DIR: seedInbox(seeds()),
    });
  });
  afterAll(() => server?.stop());

  it.each(['/errors', '/errors/issues/1', `/errors/${id('1')}`, '/errors?confirm=clear'])(
    'has no inbox pages: %s answers 404',
    async (path) => {
      const { status, html } = await page(server, path);
      expect(status).toBe(404);
      expect(html).not.toContain('TypeError: x is undefined');
    },
  );
});
