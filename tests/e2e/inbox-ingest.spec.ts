/**
 * The whole path in Chromium against the production build, no Sentry account: the example
 * page's client error, thrown again and again, becomes one issue whose count grows; resolved,
 * it comes back as regressed when it is thrown once more.
 */
import { expect, type Page, test } from '@playwright/test';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { parseEnvelope } from '#tests/support/received-envelopes';
import { throwClientErrorOnExamplePage } from './support/example-page';
import { waitForHydration } from './support/hydration';

const CLIENT_MESSAGE = 'Sentry example: client error thrown in an event handler';

interface DiscardedEvent {
  reason: string;
  category: string;
  quantity: number;
}

let server: BuiltServer;

test.beforeEach(async () => {
  server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: 'true' });
});
test.afterEach(async () => {
  await server?.stop();
});

/** Throws the example page's client error `times` times, each on a fresh page load. */
async function throwClientError(page: Page, times: number): Promise<void> {
  for (let n = 0; n < times; n += 1) {
    // A fresh load each time: the SDK drops an error identical to the one it just sent.
    expect((await throwClientErrorOnExamplePage(page, server.url)).status()).toBe(200);
  }
}

const ours = (page: Page) =>
  page
    .getByRole('list', { name: 'Issues' })
    .getByRole('listitem')
    .filter({ hasText: CLIENT_MESSAGE });

test('the same client error thrown 10 times is one issue with count 10', async ({ page }) => {
  test.setTimeout(120_000);
  await throwClientError(page, 10);
  await page.goto(`${server.url}/errors`);
  await expect(ours(page)).toHaveCount(1);
  await expect(ours(page)).toContainText('10 events');
  await expect(
    ours(page).getByRole('img', { name: /^10 events in the last 24 hours/ }),
  ).toBeVisible();

  await ours(page)
    .getByRole('link', { name: `Error: ${CLIENT_MESSAGE}` })
    .click();
  await expect(page.locator('.issue-facts')).toContainText('Events10 (10 stored)');
  await expect(
    page.getByRole('img', {
      name: /^10 events in the last 30 days, most on \d{4}-\d\d-\d\d \(10\)$/,
    }),
  ).toBeVisible();
  // Every event from the same page: its share is whole.
  await expect(page.getByRole('region', { name: 'Page' }).getByRole('listitem')).toHaveText([
    /\/sentry-example-page100%$/,
  ]);
});

test('pressed again on the same page, the same error is dropped by the SDK’s Dedupe: the count stays 1 (README)', async ({
  page,
}) => {
  // What the SDK reports it dropped, as it tells the tunnel when the page is hidden.
  const dropped: number[] = [];
  page.on('request', (request) => {
    const body = request.postDataBuffer();
    if (!request.url().includes('/monitoring?') || !body?.includes('"type":"client_report"'))
      return;
    for (const item of parseEnvelope(body).items) {
      const report = item.payload as { discarded_events?: DiscardedEvent[] };
      for (const outcome of report.discarded_events ?? []) {
        if (outcome.reason === 'event_processor' && outcome.category === 'error') {
          dropped.push(outcome.quantity);
        }
      }
    }
  });
  await throwClientError(page, 1);
  const button = page.getByRole('button', { name: 'Throw client error' });
  await button.click();
  await button.click();
  // The tab goes to the background: the SDK sends its client report, the two presses dropped.
  await page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  await expect.poll(() => dropped.reduce((sum, quantity) => sum + quantity, 0)).toBe(2);
  await page.goto(`${server.url}/errors`);
  await expect(ours(page)).toHaveCount(1);
  await expect(ours(page)).toContainText('1 event');
  await expect(ours(page)).not.toContainText('3 events');
});

test('a resolved issue thrown again is marked regressed, in the list and on its page', async ({
  page,
}) => {
  await throwClientError(page, 1);
  await page.goto(`${server.url}/errors`);
  await ours(page)
    .getByRole('link', { name: `Error: ${CLIENT_MESSAGE}` })
    .click();
  await waitForHydration(page);
  await page.getByRole('button', { name: 'Resolve' }).click();
  await expect(page.locator('.issue-workflow')).toContainText('Status: Resolved');
  const issuePage = page.url();

  await throwClientError(page, 1);
  await page.goto(`${server.url}/errors`);
  await expect(ours(page)).toContainText('2 events');
  await expect(ours(page).getByText('Regressed', { exact: true })).toBeVisible();
  await page.goto(issuePage);
  await expect(page.locator('.issue-workflow')).toContainText('Status: Regressed Unresolved');
  await expect(page.getByRole('button', { name: 'Resolve' })).toBeVisible();
});
