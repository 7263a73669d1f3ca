/**
 * /errors in a real browser against the production build: hostile event content stays
 * text, the list leads to the detail view, and clearing takes a confirmation.
 */
import { expect, type Page, test } from '@playwright/test';
import { errorEnvelope } from '#tests/fixtures/inbox-envelopes';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { seedInbox } from '#tests/support/seed-inbox';
import { waitForHydration } from './support/hydration';
import { collectPageErrors } from './support/page-errors';

// Two ways in if the page ever rendered event text as HTML: a script, and an event handler.
const HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1">';
const EVENT_ID = 'abcdef0123456789abcdef0123456789';

let server: BuiltServer;

/** A server of its own over an inbox holding the one hostile event. */
function startSeededServer(): Promise<BuiltServer> {
  const dir = seedInbox([
    errorEnvelope({ eventId: EVENT_ID, type: 'TypeError', message: `Hostile ${HOSTILE}` }),
  ]);
  return startBuiltServer({ MONITORING_INBOX_DIR: dir });
}

test.beforeAll(async () => {
  server = await startSeededServer();
});

test.afterAll(async () => {
  await server?.stop();
});

test('shows a <script> and an <img onerror> in an event message as text and never runs them', async ({
  page,
}) => {
  const errors = collectPageErrors(page);
  await page.goto(`${server.url}/errors`);
  await waitForHydration(page);
  const events = page.getByRole('list', { name: 'Captured events' }).getByRole('listitem');
  await expect(events).toHaveCount(1);
  await expect(events.first()).toContainText(`TypeError: Hostile ${HOSTILE}`);
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(errors).toEqual([]);
});

test('opens the detail view by clicking the event', async ({ page }) => {
  const errors = collectPageErrors(page);
  await page.goto(`${server.url}/errors`);
  await waitForHydration(page);
  await page.getByRole('link', { name: `TypeError: Hostile ${HOSTILE}` }).click();
  await expect(page).toHaveURL(`${server.url}/errors/${EVENT_ID}`);
  await expect(page.getByRole('heading', { name: 'Stack trace' })).toBeVisible();
  const frames = page.getByRole('list', { name: 'Stack frames' }).getByRole('listitem');
  await expect(frames.first()).toContainText('handleThrowClick');
  await expect(frames.first()).toContainText('(no map for this file)');
  await expect(frames.nth(1)).toContainText('callCallback');
  await expect(page.getByRole('cell', { name: 'button#throw-client' })).toBeVisible();
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(errors).toEqual([]);
});

test('clears the inbox only after a confirmation', async ({ page }) => {
  // Its own server: clearing must not empty the inbox the other tests read.
  const own = await startSeededServer();
  try {
    await clearOwnInbox(page, own);
  } finally {
    await own.stop();
  }
});

async function clearOwnInbox(page: Page, own: BuiltServer): Promise<void> {
  const errors = collectPageErrors(page);
  await page.goto(`${own.url}/errors`);
  await waitForHydration(page);
  await page.getByRole('link', { name: 'Clear the inbox…' }).click();
  // The seeded event, and what the browser SDK itself sent since (its page-load traces).
  await expect(page.getByText(/Delete all \d+ stored envelopes?\?/)).toBeVisible();
  await page.getByRole('link', { name: 'Cancel' }).click();
  await expect(page.getByRole('list', { name: 'Captured events' })).toBeVisible();

  await page.getByRole('link', { name: 'Clear the inbox…' }).click();
  await page.getByRole('button', { name: 'Yes, clear the inbox' }).click();
  await expect(page.getByRole('status')).toHaveText(/^Inbox cleared: \d+ envelopes? deleted\.$/);
  await expect(page.getByText('No errors captured yet.')).toBeVisible();
  expect(errors).toEqual([]);
}

test('shows an event whose text holds a lone surrogate without a hydration error, and reports nothing new', async ({
  page,
}) => {
  const loneId = 'bcdef0123456789abcdef0123456789a';
  const own = await startBuiltServer({
    MONITORING_INBOX_DIR: seedInbox([
      errorEnvelope({ eventId: loneId, type: 'Error', message: 'Lone \ud800 surrogate' }),
    ]),
  });
  try {
    const errors = collectPageErrors(page);
    const reports: string[] = [];
    page.on('request', (request) => {
      const isEvent = request.postData()?.includes('"type":"event"') ?? false;
      if (new URL(request.url()).pathname === '/monitoring' && isEvent) reports.push(request.url());
    });
    await page.goto(`${own.url}/errors`);
    await waitForHydration(page);
    await expect(page.getByRole('link', { name: 'Error: Lone \ufffd surrogate' })).toBeVisible();
    await page.goto(`${own.url}/errors/${loneId}`);
    await waitForHydration(page);
    await expect(
      page.getByRole('heading', { level: 1, name: 'Error: Lone \ufffd surrogate' }),
    ).toBeVisible();
    expect(errors).toEqual([]);
    // A hydration error would have been reported as an error event, into this very inbox.
    expect(reports).toEqual([]);
  } finally {
    await own.stop();
  }
});
