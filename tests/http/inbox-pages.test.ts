/**
 * Local inbox mode over real HTTP against the production build: /errors lists what the
 * store holds, the detail page shows the stack, clearing works, and with SENTRY_DSN set
 * the pages answer 404. The inbox is seeded through the store module on the test's dir.
 */

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openInbox } from '#app/server/inbox/inbox.server';
import { errorEnvelope, sessionEnvelope } from '#tests/fixtures/inbox-envelopes';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { withoutTextSeparators } from '#tests/support/html-text';
import { seedInbox } from '#tests/support/seed-inbox';

const OLD_ID = '1'.repeat(32);
const NEW_ID = '2'.repeat(32);
const HOSTILE = '<script>window.__pwned=1</script>';

async function seededInbox(): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'inbox-http-')), 'inbox');
  const inbox = openInbox(dir);
  await inbox.append(
    errorEnvelope({
      eventId: OLD_ID,
      type: 'RangeError',
      message: 'the older error',
      url: 'http://localhost:3000/older-page',
      environment: 'staging',
    }),
  );
  await inbox.append(sessionEnvelope());
  await inbox.append(
    errorEnvelope({
      eventId: NEW_ID,
      type: 'TypeError',
      message: `newer ${HOSTILE}`,
      url: 'http://localhost:3000/sentry-example-page',
      digest: 'digest-4f2a',
    }),
  );
  return dir;
}

describe('local inbox mode', () => {
  let server: BuiltServer;
  let inboxDir: string;

  beforeAll(async () => {
    inboxDir = await seededInbox();
    server = await startBuiltServer({ MONITORING_INBOX_DIR: inboxDir });
  });
  afterAll(() => server?.stop());

  it('says at start where the inbox is and where to read it', () => {
    expect(server.output()).toContain(
      `errors are kept in ${inboxDir}; read them at ${server.url}/errors`,
    );
  });

  it('lists the captured events newest first, with their details, and counts the rest', async () => {
    const response = await fetch(`${server.url}/errors`);
    expect(response.status).toBe(200);
    const html = await response.text();
    const newer = html.indexOf('TypeError: newer');
    const older = html.indexOf('RangeError: the older error');
    expect(newer).toBeGreaterThan(-1);
    expect(older).toBeGreaterThan(newer);
    expect(html).toContain('http://localhost:3000/sentry-example-page');
    expect(html).toContain('http://localhost:3000/older-page');
    expect(html).toContain('digest-4f2a');
    expect(html).toContain('staging');
    expect(html).toContain('2 events in 3 envelopes; also received: 1 session.');
    expect(html).toContain(`href="/errors/${NEW_ID}"`);
  });

  it("marks the navigation's inbox link current on the inbox's pages, and only there", async () => {
    const inboxLink = async (path: string) => {
      const html = await (await fetch(`${server.url}${path}`)).text();
      const link = html.match(/<a [^>]*href="\/errors"[^>]*>Error inbox<\/a>/)?.[0];
      expect(link, path).toBeDefined();
      return link;
    };
    expect(await inboxLink('/errors')).toContain('aria-current="page"');
    expect(await inboxLink(`/errors/${NEW_ID}`)).toContain('aria-current="page"');
    expect(await inboxLink('/about')).not.toContain('aria-current');
  });

  it('renders a hostile message as text, never as markup', async () => {
    const html = await (await fetch(`${server.url}/errors`)).text();
    expect(html).toContain('&lt;script&gt;window.__pwned=1&lt;/script&gt;');
    expect(html).not.toContain(HOSTILE);
  });

  it('shows one event with its stack, breadcrumbs and tags', async () => {
    const response = await fetch(`${server.url}/errors/${NEW_ID}`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('Stack trace');
    const inApp = html.indexOf('handleThrowClick');
    const vendor = html.indexOf('callCallback');
    expect(inApp).toBeGreaterThan(-1);
    // Most recent call first.
    expect(vendor).toBeGreaterThan(inApp);
    // No map in this build for the seeded chunk: shown as it came, with the reason.
    expect(html).toMatch(
      /class="frame in-app"><code>handleThrowClick<\/code> at <code>http:\/\/localhost:3000\/_build\/assets\/example-page\.js:42:13<\/code><span class="badge"> in app<\/span><span class="frame-reason"> \(no map for this file\)/,
    );
    expect(html).toContain('button#throw-client');
    expect(html).toContain('digest-4f2a');
  });

  it.each(['/errors/ffffffffffffffffffffffffffffffff', '/errors/no%20such%20id'])(
    'answers 404 for an event it does not hold (%s)',
    async (path) => {
      expect((await fetch(`${server.url}${path}`)).status).toBe(404);
    },
  );

  it('shows an envelope that arrives while the server runs', async () => {
    await openInbox(inboxDir).append(errorEnvelope({ eventId: '3'.repeat(32), message: 'late' }));
    const html = await (await fetch(`${server.url}/errors`)).text();
    expect(html).toContain('Error: late');
  });
});

describe('clearing the inbox', () => {
  let server: BuiltServer;

  // A server and a seeded inbox per test: each test clears, or tries to, on its own.
  beforeEach(async () => {
    server = await startBuiltServer({ MONITORING_INBOX_DIR: await seededInbox() });
  });
  afterEach(() => server?.stop());

  async function clearForm(): Promise<{ action: string; count: number }> {
    const html = await (await fetch(`${server.url}/errors?confirm=clear`)).text();
    const count = Number(/Delete all (\d+) stored envelopes\?/.exec(html)?.[1]);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    expect(action).toMatch(/^\/_server\//);
    return { action: action as string, count };
  }

  const post = (action: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${action.replaceAll('&amp;', '&')}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body,
      redirect: 'manual',
    });

  it('asks first: the list page itself has only a link to the confirmation', async () => {
    const html = await (await fetch(`${server.url}/errors`)).text();
    expect(html).toContain('Clear the inbox…');
    expect(html).not.toContain('<form');
  });

  it('deletes nothing without the confirmation or from another site', async () => {
    const { action, count } = await clearForm();
    expect(count).toBe(3);
    // Refused by the validator: the caller's mistake (400), not a failure the inbox records.
    expect((await post(action, 'confirm=yes')).status).toBe(400);
    const crossSite = await post(action, 'confirm=clear', { Origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    // What an <img> or a link on another site can send: no Origin, at most Sec-Fetch-Site.
    const fetchSite = await post(action, 'confirm=clear', { 'Sec-Fetch-Site': 'cross-site' });
    expect(fetchSite.status).toBe(403);
    const payload = encodeURIComponent(JSON.stringify({ data: { confirm: 'clear' } }));
    const get = await fetch(
      `${server.url}${action.replaceAll('&amp;', '&')}?createServerFn&payload=${payload}`,
      { redirect: 'manual' },
    );
    expect(get.status).toBe(405);
    const html = await (await fetch(`${server.url}/errors`)).text();
    expect(html).toContain('TypeError: newer');
  });

  it('deletes everything on the confirmed POST and says so', async () => {
    // A refused confirmation first: it must not be stored as an event of its own.
    expect((await post((await clearForm()).action, 'confirm=yes')).status).toBe(400);
    const { action, count } = await clearForm();
    expect(count).toBe(3);
    const response = await post(action, 'confirm=clear', { Origin: server.url });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/errors?cleared=3');
    const html = await (await fetch(`${server.url}/errors?cleared=3`)).text();
    expect(html).toContain('Inbox cleared: 3 envelopes deleted.');
    expect(html).toContain('No errors captured yet.');
    // Example routes are off here: the page says how to turn them on.
    expect(withoutTextSeparators(html)).toContain(
      'To make one, run <code>npm run dev</code>, or start with <code>ENABLE_EXAMPLE_ROUTES=1</code>, and use the buttons of <code>/sentry-example-page</code>.',
    );
    expect(html).not.toContain('TypeError: newer');
  });
});

describe('with a Sentry DSN', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer({
      SENTRY_DSN: 'https://publickey@o1.ingest.us.sentry.io/2',
      MONITORING_INBOX_DIR: await seededInbox(),
    });
  });
  afterAll(() => server?.stop());

  it.each(['/errors', `/errors/${NEW_ID}`, '/errors?confirm=clear'])(
    'has no inbox pages: %s answers 404',
    async (path) => {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('TypeError: newer');
    },
  );

  it('reports the Sentry mode on /health', async () => {
    const body = await (await fetch(`${server.url}/health`)).json();
    expect(body).toMatchObject({ status: 'ok', monitoring: 'sentry' });
  });
});

describe('a full inbox', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    const envelopes = Array.from({ length: 1000 }, (_, n) =>
      errorEnvelope({ eventId: n.toString(16).padStart(32, '0'), message: `event number ${n}` }),
    );
    server = await startBuiltServer({ MONITORING_INBOX_DIR: seedInbox(envelopes) });
  });
  afterAll(() => server?.stop());

  it('shows 50 events a page, newest first, and pages back to the oldest', async () => {
    const first = await (await fetch(`${server.url}/errors`)).text();
    expect(first).toContain('1000 events in 1000 envelopes.');
    expect(first.match(/data-testid="inbox-event"/g)).toHaveLength(50);
    expect(first).toContain('Error: event number 999<');
    expect(first).toContain('Error: event number 950<');
    expect(first).not.toContain('Error: event number 949<');
    expect(first).toContain('Page 1 of 20');

    const last = await (await fetch(`${server.url}/errors?page=20`)).text();
    expect(last).toContain('Error: event number 0<');
    expect(last).not.toContain('Error: event number 50<');
  });
});
