/**
 * Signing in to the private inbox in a real browser (decision 0306): the one-click link the
 * server prints lands on /errors signed in, with the token gone from the address bar and never
 * sent to the server in a URL; without JavaScript the token is pasted into the form; sign-out
 * ends the session.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { errorEnvelope } from '#tests/fixtures/inbox-envelopes';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { generatedTokenIn } from '#tests/support/inbox-sign-in';
import { seedInbox } from '#tests/support/seed-inbox';
import { waitForHydration } from './support/hydration';
import { collectPageErrors } from './support/page-errors';

const SECRET = 'secret-message-only-the-inbox-may-show';

let server: BuiltServer;
let inboxDir: string;

test.beforeAll(async () => {
  inboxDir = seedInbox([errorEnvelope({ type: 'TypeError', message: SECRET })]);
  // The production default: even this machine signs in, with the token made for the run.
  server = await startBuiltServer({
    MONITORING_INBOX_DIR: inboxDir,
    MONITORING_INBOX_TRUST_LOOPBACK: 'false',
  });
});

test.afterAll(async () => {
  await server?.stop();
});

/** The link of the start line, as an operator would click it. */
function printedLink(): string {
  const link = /http:\/\/\S+\/errors\/sign-in#token=[A-Za-z0-9_-]+/.exec(server.output())?.[0];
  if (!link) throw new Error(`No sign-in link in:\n${server.output()}`);
  return link;
}

async function expectSignedInInbox(page: Page) {
  await expect(page).toHaveURL(`${server.url}/errors`);
  await expect(page.getByRole('link', { name: `TypeError: ${SECRET}` })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
}

test('the printed link lands on /errors signed in, the token gone from the URL', async ({
  page,
}) => {
  const token = generatedTokenIn(server.output());
  const errors = collectPageErrors(page);
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));

  await page.goto(printedLink());
  await expectSignedInInbox(page);
  await waitForHydration(page);
  expect(page.url()).not.toContain('#');
  // The entry the link opened keeps no fragment either (Chromium's own list of the tab's entries).
  const cdp = await page.context().newCDPSession(page);
  const { entries } = await cdp.send('Page.getNavigationHistory');
  expect(entries.map((entry) => entry.url)).toContain(`${server.url}/errors/sign-in`);
  expect(entries.filter((entry) => entry.url.includes(token))).toEqual([]);

  expect(requested.filter((url) => url.includes(token))).toEqual([]);
  expect(server.output().split(token)).toHaveLength(2); // the start line only
  // Nor did the browser's own reports (page views, traces) carry it into the inbox.
  for (const name of readdirSync(inboxDir)) {
    expect(readFileSync(join(inboxDir, name), 'latin1')).not.toContain(token);
  }
  expect(errors).toEqual([]);
});

test('without JavaScript, the token pasted into the form signs in', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}/errors`);
    await expect(page).toHaveURL(`${server.url}/errors/sign-in`);
    await page.getByLabel('Inbox token').fill(generatedTokenIn(server.output()));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectSignedInInbox(page);
  } finally {
    await context.close();
  }
});

test('signing out ends the session', async ({ page }) => {
  await page.goto(printedLink());
  await expectSignedInInbox(page);
  await waitForHydration(page);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(`${server.url}/errors/sign-in`);
  await expect(page.getByRole('form', { name: 'Sign in to the error inbox' })).toBeVisible();
  await page.goto(`${server.url}/errors`);
  await expect(page).toHaveURL(`${server.url}/errors/sign-in`);
  await expect(page.getByText(SECRET)).toHaveCount(0);
});
