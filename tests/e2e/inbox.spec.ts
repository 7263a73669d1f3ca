/**
 * /errors in a real browser against the production build, over a seeded inbox database:
 * hostile event content stays text, the list leads to an issue's page (histogram, tags, its
 * events), the filters and search work, resolving shows the issue resolved, clearing takes a
 * confirmation, and a 390 px screen never scrolls sideways.
 */
import { expect, type Page, test } from '@playwright/test';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { seededEvent, seedInbox } from '#tests/support/seed-inbox';
import { waitForHydration } from './support/hydration';
import { collectPageErrors } from './support/page-errors';

// Two ways in if the page ever rendered event text as HTML: a script, and an event handler.
const HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1">';
const HOUR = 3_600_000;
const id = (digit: string) => digit.repeat(32);
const LONG_WORD = `https://example.com/${'segment'.repeat(40)}?${'q'.repeat(200)}`;
const MINIFIED_STACK = `TypeError: n is not a function\n    at https://example.com/_build/assets/vendor-${'x'.repeat(600)}.js:1:23456`;

/** Two issues in production (one hostile, 3 events), one in development; long text everywhere. */
function seeds() {
  const now = Date.now();
  // The three events fall on one day (the histogram test counts one bar of 3): in the first
  // three hours of a day, they are put in the last hours of the day before.
  const day = (at: number) => new Date(at).toISOString().slice(0, 10);
  const latest = day(now - 3 * HOUR) === day(now) ? now : Date.parse(day(now)) - 1;
  return [
    ...[3, 2, 1].map((hoursAgo, n) =>
      seededEvent({
        eventId: id(String(n + 1)),
        type: 'TypeError',
        message: `Hostile ${HOSTILE}`,
        url: 'http://localhost:3000/checkout',
        at: latest - hoursAgo * HOUR,
        tags: [
          ['browser', n === 0 ? 'Firefox 140' : 'Chrome 156'],
          ['os', 'Linux'],
          // The page, as ingest tags it (search reads it); a long value under a key of its own.
          ['url', '/checkout'],
          ['long', LONG_WORD],
        ],
        event: {
          tags: { long: LONG_WORD },
          breadcrumbs: [
            { category: 'console', level: 'error', message: MINIFIED_STACK },
            { category: 'fetch', data: { url: LONG_WORD } },
          ],
        },
      }),
    ),
    seededEvent({
      eventId: id('a'),
      type: 'RangeError',
      message: `Development only ${'z'.repeat(300)}`,
      environment: 'development',
      url: 'http://localhost:3000/about',
      at: now - 30 * 60_000,
    }),
  ];
}

let server: BuiltServer;

test.beforeAll(async () => {
  server = await startBuiltServer({ MONITORING_INBOX_DIR: seedInbox(seeds()) });
});
test.afterAll(async () => {
  await server?.stop();
});

const issues = (page: Page) => page.getByRole('list', { name: 'Issues' }).getByRole('listitem');
const pwned = (page: Page) => page.evaluate(() => (window as { __pwned?: number }).__pwned);

test('lists the issues, hostile text as text, and opens an issue’s page with its latest event', async ({
  page,
}) => {
  const errors = collectPageErrors(page);
  await page.goto(`${server.url}/errors`);
  await waitForHydration(page);
  await expect(issues(page)).toHaveCount(2);
  const hostile = issues(page).filter({ hasText: `TypeError: Hostile ${HOSTILE}` });
  await expect(hostile).toContainText('3 events');
  await expect(
    hostile.getByRole('img', { name: '3 events in the last 24 hours, at most 1 in an hour' }),
  ).toBeVisible();
  expect(await pwned(page)).toBeUndefined();

  await hostile.getByRole('link', { name: `TypeError: Hostile ${HOSTILE}` }).click();
  await expect(page).toHaveURL(`${server.url}/errors/issues/1`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`TypeError: Hostile ${HOSTILE}`);
  await expect(page.getByRole('heading', { name: 'Latest event' })).toBeVisible();
  await expect(page.getByText(id('3'), { exact: true })).toBeVisible();
  const frames = page.getByRole('list', { name: 'Stack frames' }).getByRole('listitem');
  await expect(frames.first()).toContainText('handleThrowClick');
  await expect(frames.first()).toContainText('(no map for this file)');

  // Older events, one step at a time.
  await page.getByRole('link', { name: '← Older' }).click();
  await expect(page).toHaveURL(`${server.url}/errors/issues/1?event=${id('2')}`);
  await expect(page.getByText(id('2'), { exact: true })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Event', exact: true })).toBeVisible();
  expect(await pwned(page)).toBeUndefined();
  expect(errors).toEqual([]);
});

test('an issue’s page shows its 30-day histogram and its tags in percentages', async ({ page }) => {
  const errors = collectPageErrors(page);
  await page.goto(`${server.url}/errors/issues/1`);
  await waitForHydration(page);
  const histogram = page.getByRole('img', {
    name: /^3 events in the last 30 days, most on \d{4}-\d\d-\d\d \(3\)$/,
  });
  await expect(histogram).toBeVisible();
  expect((await histogram.boundingBox())?.height).toBeGreaterThan(40);
  await expect(histogram.locator('rect')).toHaveCount(1);
  const browser = page.getByRole('region', { name: 'Browser' });
  await expect(browser.getByRole('listitem')).toHaveText(['Chrome 15667%', 'Firefox 14033%']);
  await expect(page.getByRole('region', { name: 'OS' }).getByRole('listitem')).toHaveText([
    'Linux100%',
  ]);
  expect(errors).toEqual([]);
});

test('filters by environment and searches, with the form as plain GET', async ({ page }) => {
  const errors = collectPageErrors(page);
  await page.goto(`${server.url}/errors`);
  await waitForHydration(page);
  await page.getByLabel('Environment').selectOption('development');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/\/errors\?.*environment=development/);
  await expect(issues(page)).toHaveCount(1);
  await expect(issues(page).first()).toContainText('RangeError: Development only');
  await expect(issues(page).first().getByText('development', { exact: true })).toHaveClass(
    'env env-development',
  );

  await page.getByLabel('Environment').selectOption('');
  await page.getByLabel('Search').fill('checkout');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/q=checkout/);
  await expect(issues(page)).toHaveCount(1);
  await expect(issues(page).first()).toContainText('TypeError: Hostile');
  await expect(page.getByLabel('Search')).toHaveValue('checkout');

  await page.getByLabel('Search').fill('nothing matches this');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByText('No issues match these filters.')).toBeVisible();
  await page.getByRole('link', { name: 'Reset' }).click();
  await expect(issues(page)).toHaveCount(2);
  expect(errors).toEqual([]);
});

test('a long breadcrumb is one line until opened', async ({ page }) => {
  await page.goto(`${server.url}/errors/issues/1`);
  await waitForHydration(page);
  const crumb = page.getByRole('list', { name: 'Breadcrumbs' }).getByRole('listitem').first();
  const summary = crumb.locator('summary');
  const line = (await summary.boundingBox())?.height ?? 0;
  expect(line).toBeLessThan(30);
  await expect(crumb.locator('pre')).toBeHidden();
  await summary.click();
  await expect(crumb.locator('pre')).toBeVisible();
  await expect(crumb.locator('pre')).toHaveText(MINIFIED_STACK);
});

for (const [name, path] of [
  ['the list', '/errors'],
  ['an issue', '/errors/issues/1'],
  ['an event', `/errors/issues/1?event=${id('2')}`],
  ['a development issue', '/errors/issues/2'],
]) {
  test(`${name} fits a 390 px screen: nothing scrolls sideways`, async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const errors = collectPageErrors(page);
    await page.goto(`${server.url}${path}`);
    await waitForHydration(page);
    // Open every fold too: the long text inside must wrap as well.
    for (const summary of await page.locator('summary').all()) await summary.click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    expect(errors).toEqual([]);
  });
}

test('uses a wide screen’s width', async ({ page }) => {
  await page.setViewportSize({ width: 1600, height: 900 });
  await page.goto(`${server.url}/errors/issues/1`);
  const main = await page.locator('main').boundingBox();
  expect(main?.width).toBeGreaterThan(1400);
  // The issue's facts beside its event.
  const side = await page.getByRole('complementary', { name: 'About this issue' }).boundingBox();
  const event = await page.locator('section.event').boundingBox();
  expect((side?.x ?? 0) > (event?.x ?? 0) + (event?.width ?? 0) - 1).toBe(true);
});

test('resolving an issue shows it resolved, and reopening it shows it unresolved', async ({
  page,
}) => {
  // Its own server: the status must not change what the other tests read.
  const own = await startBuiltServer({ MONITORING_INBOX_DIR: seedInbox(seeds()) });
  try {
    const errors = collectPageErrors(page);
    await page.goto(`${own.url}/errors/issues/1`);
    await waitForHydration(page);
    await page.getByRole('button', { name: 'Resolve' }).click();
    await expect(page).toHaveURL(`${own.url}/errors/issues/1`);
    await expect(page.locator('.issue-workflow')).toContainText('Status: Resolved');
    await expect(page.getByRole('button', { name: 'Resolve' })).toHaveCount(0);

    await page.goto(`${own.url}/errors?status=resolved`);
    await expect(issues(page)).toHaveCount(1);
    await expect(issues(page).first().getByText('Resolved', { exact: true })).toBeVisible();

    await page.goto(`${own.url}/errors/issues/1`);
    await page.getByRole('button', { name: 'Reopen' }).click();
    await expect(page.locator('.issue-workflow')).toContainText('Status: Unresolved');
    expect(errors).toEqual([]);
  } finally {
    await own.stop();
  }
});

test('clears the inbox only after a confirmation', async ({ page }) => {
  // Its own server: clearing must not empty the inbox the other tests read.
  const own = await startBuiltServer({ MONITORING_INBOX_DIR: seedInbox(seeds()) });
  try {
    const errors = collectPageErrors(page);
    await page.goto(`${own.url}/errors`);
    await waitForHydration(page);
    await page.getByRole('link', { name: 'Clear the inbox…' }).click();
    await expect(page.getByText(/^Delete all 2 issues, their events/)).toBeVisible();
    await page.getByRole('link', { name: 'Cancel' }).click();
    await expect(page.getByRole('list', { name: 'Issues' })).toBeVisible();

    await page.getByRole('link', { name: 'Clear the inbox…' }).click();
    await page.getByRole('button', { name: 'Yes, clear the inbox' }).click();
    await expect(page.getByRole('status')).toHaveText('Inbox cleared: 2 issues deleted.');
    await expect(page.getByText('No errors captured yet.')).toBeVisible();
    expect(errors).toEqual([]);
  } finally {
    await own.stop();
  }
});

test('shows an issue whose text holds a lone surrogate without a hydration error, and reports nothing new', async ({
  page,
}) => {
  const loneId = 'bcdef0123456789abcdef0123456789a';
  const own = await startBuiltServer({
    MONITORING_INBOX_DIR: seedInbox([
      seededEvent({ eventId: loneId, type: 'Error', message: 'Lone \ud800 surrogate' }),
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
    // U+FFFD where the surrogate was (the title column holds what SQLite made of it).
    await expect(page.getByRole('link', { name: /^Error: Lone \ufffd+ surrogate$/ })).toBeVisible();
    // The event's own address leads to its issue.
    await page.goto(`${own.url}/errors/${loneId}`);
    await waitForHydration(page);
    await expect(page).toHaveURL(`${own.url}/errors/issues/1?event=${loneId}`);
    await expect(
      page.getByRole('heading', { level: 1, name: /^Error: Lone \ufffd+ surrogate$/ }),
    ).toBeVisible();
    expect(errors).toEqual([]);
    // A hydration error would have been reported as an error event, into this very inbox.
    expect(reports).toEqual([]);
  } finally {
    await own.stop();
  }
});
