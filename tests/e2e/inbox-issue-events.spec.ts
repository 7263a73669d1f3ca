/**
 * An issue's users and its events in a real browser, on a phone: the page says whom it hit,
 * lists its events newest first, opens one from the list (marked there), pages to older ones,
 * and nothing scrolls sideways.
 */
import { expect, test } from '@playwright/test';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { seededEvent, seedInbox, seedInto } from '#tests/support/seed-inbox';
import { waitForHydration } from './support/hydration';
import { collectPageErrors } from './support/page-errors';

const MINUTE = 60_000;
/** 25 events of one issue, a minute apart, the newest first in this list; three users. */
const events = Array.from({ length: 25 }, (_, n) => {
  const user = `id:user-${n % 3}`;
  const seeded = seededEvent({
    eventId: `${(100 + n).toString(16)}`.padStart(32, 'c'),
    type: 'TypeError',
    message: 'x is undefined',
    at: Date.now() - n * MINUTE,
    tags: [
      ['browser', 'Chrome 156'],
      ['handled', 'no'],
      ['user', user],
    ],
    event: { user: { id: `user-${n % 3}` } },
  });
  if (seeded.event) seeded.event.userKey = user;
  return seeded;
});

let server: BuiltServer;

test.beforeAll(async () => {
  // Each received a minute before the one listed above it; the newest 20 s ago, so that a slow
  // start of the server (up to half a minute) leaves every "N minutes ago" as it is.
  const dir = seedInbox([]);
  for (const [n, event] of [...events].entries()) {
    seedInto(dir, [event], { receivedAt: Date.now() - n * MINUTE - 20_000 });
  }
  server = await startBuiltServer({ MONITORING_INBOX_DIR: dir });
});
test.afterAll(async () => {
  await server?.stop();
});

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

test('an issue’s users and events on a phone: open one from the list, page to older ones', async ({
  page,
}) => {
  const errors = collectPageErrors(page);
  await page.goto(`${server.url}/errors/issues/1`);
  await waitForHydration(page);
  await expect(page.getByText('3 users')).toBeVisible();
  const list = page.getByRole('list', { name: 'Events of this issue, newest first' });
  const links = list.getByRole('link');
  await expect(links).toHaveCount(20);
  await expect(links.first()).toHaveText(/^\d\d seconds ago cccc/);
  await expect(links.nth(3)).toHaveText(/^3 minutes ago /);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  // Open the fourth newest from the list: the page shows it, and the list marks it.
  const fourth = events[3]?.event?.eventId as string;
  await links.nth(3).click();
  await expect(page).toHaveURL(new RegExp(`event=${fourth}`));
  await expect(page.getByRole('heading', { name: 'Event', exact: true })).toBeVisible();
  await expect(list.locator('a[aria-current="page"]')).toHaveAttribute(
    'href',
    new RegExp(`event=${fourth}$`),
  );

  // The older page keeps the event on view and lists the five oldest.
  await page.getByRole('link', { name: 'Older events →' }).click();
  await expect(page.getByRole('heading', { name: 'Older events' })).toBeVisible();
  await expect(list.getByRole('link')).toHaveCount(5);
  await expect(list.getByRole('link').last()).toHaveText(/^24 minutes ago /);
  await expect(page.getByRole('heading', { name: 'Event', exact: true })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(errors).toEqual([]);
});
