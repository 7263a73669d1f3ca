/**
 * Release health counts the app's users, not the operator (decision 1131): in local inbox mode
 * a page view that starts on the inbox's own pages (/errors and below) starts no session, nor
 * does a client-side navigation out of them; a session started on an app page stays the app's
 * through a client-side visit to the inbox, and an error there does not mark it. Real Chromium
 * against the production build; the sessions are read as the page sends them to the tunnel and
 * as the inbox stored them.
 */
import { expect, type Page, test } from '@playwright/test';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { storedSessions } from '#tests/support/inbox-database';
import { parseEnvelope } from '#tests/support/received-envelopes';
import { seededEvent, seedInbox } from '#tests/support/seed-inbox';
import { waitForHydration } from './support/hydration';
import { captureInPage, throwInPage, waitForSentryClient } from './support/page-sdk';

interface SentSession {
  sid: string;
  init?: boolean;
  status: string;
  errors: number;
}

let server: BuiltServer;
let dir: string;

test.beforeEach(async () => {
  dir = seedInbox([seededEvent({ type: 'TypeError', message: 'seeded for the issue page' })]);
  server = await startBuiltServer({ MONITORING_INBOX_DIR: dir });
});
test.afterEach(async () => {
  await server?.stop();
});

/** Every session update the page sends to the tunnel, in the order it sends them. */
function recordSessions(page: Page): SentSession[] {
  const sent: SentSession[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'POST' || !request.url().includes('/monitoring?')) return;
    const body = request.postDataBuffer();
    if (!body?.includes('"type":"session"')) return;
    for (const item of parseEnvelope(body).items) {
      if (item.header.type === 'session') sent.push(item.payload as SentSession);
    }
  });
  return sent;
}

/**
 * A page view, loaded and hydrated, with its SDK loaded (every page view is traced in local
 * inbox mode): by then the page has started its session, if it starts one.
 */
async function view(page: Page, path: string): Promise<void> {
  await page.goto(`${server.url}${path}`);
  await waitForHydration(page);
  await waitForSentryClient(page);
}

/** A client-side navigation through the router, as a `<Link>` makes it. */
async function navigate(page: Page, to: string): Promise<void> {
  await page.evaluate(async (path) => {
    const router = (
      window as unknown as { __TSR_ROUTER__: { navigate(o: { to: string }): Promise<void> } }
    ).__TSR_ROUTER__;
    await router.navigate({ to: path });
  }, to);
  await expect(page).toHaveURL(`${server.url}${to}`);
}

test('five views of the inbox and a client-side step out of it start no session; the app’s page does', async ({
  page,
}) => {
  const sessions = recordSessions(page);
  await view(page, '/errors');
  // A client-side navigation within the inbox, to the page.
  await page.getByRole('list', { name: 'Issues' }).getByRole('link').first().click();
  await expect(page).toHaveURL(/\/errors\/issues\/1/);
  for (let n = 0; n < 3; n++) await view(page, '/errors/issues/1');
  await view(page, '/errors');
  // Out of the inbox by the navigation's own link, client-side.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click();
  await expect(page).toHaveURL(`${server.url}/`);

  // The checkpoint: a page load of the app starts its session, and the inbox stores it.
  await view(page, '/about');
  await expect.poll(() => storedSessions(dir).started).toBe(1);
  expect(sessions).toEqual([expect.objectContaining({ init: true, status: 'ok', errors: 0 })]);
});

test('a session started on an app page stays the app’s through a client-side visit to the inbox', async ({
  page,
}) => {
  const sessions = recordSessions(page);
  const dropped = page.waitForEvent('console', (message) =>
    message.text().includes('not stored: an error on the inbox’s own page'),
  );
  await view(page, '/');
  await expect.poll(() => sessions.length).toBe(1);

  await navigate(page, '/errors');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  // An uncaught error on the inbox's page: not stored, and not the session's.
  await throwInPage(page, 'thrown on the inbox page');
  await dropped;

  await navigate(page, '/about');
  // A handled error on the app's page: the session's first error, so the SDK sends the update.
  // Had the inbox's error marked it `unhandled`, this update would be that one (and this error
  // would send none, the session being over).
  await captureInPage(page, 'handled on an app page');
  await expect.poll(() => sessions.length).toBe(2);
  const [started, updated] = sessions;
  expect(started).toMatchObject({ init: true, status: 'ok', errors: 0 });
  expect(updated).toMatchObject({ sid: started?.sid, status: 'ok', errors: 1 });
  await expect.poll(() => storedSessions(dir)).toEqual({ started: 1, unhandled: 0 });
});
