/**
 * The newcomer's path with no Sentry account: the production build without SENTRY_DSN, an
 * error thrown on the example page, read back on /errors. It crosses every part: the browser
 * SDK, the /monitoring tunnel in local inbox mode, the inbox store and the inbox pages.
 */
import { expect, test } from '@playwright/test';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { throwClientErrorOnExamplePage } from './support/example-page';

let server: BuiltServer;

test.beforeAll(async () => {
  server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: 'true' });
});
test.afterAll(async () => {
  await server?.stop();
});

test('"Throw client error" on the example page shows up on /errors, with its stack and in-app frames', async ({
  page,
}) => {
  // The tunnel answers once the envelope is in the inbox.
  const stored = await throwClientErrorOnExamplePage(page, server.url);
  expect(stored.status()).toBe(200);
  // The page says so, and links to the very event.
  const eventId = /"event_id":"([0-9a-f]{32})"/.exec(stored.request().postData() ?? '')?.[1];
  const report = page.getByTestId('last-report');
  await expect(report).toHaveText(`Reported: event ${eventId?.slice(0, 8)} in the error inbox.`);
  await expect(report.getByRole('link', { name: 'the error inbox' })).toHaveAttribute(
    'href',
    `/errors/${eventId}`,
  );

  await page.goto(`${server.url}/errors`);
  const events = page.getByRole('list', { name: 'Issues' }).getByRole('listitem');
  const ours = events.filter({
    hasText: 'Sentry example: client error thrown in an event handler',
  });
  await expect(ours).toHaveCount(1);
  await expect(ours.first()).toContainText('/sentry-example-page');

  await ours.first().getByRole('link').first().click();
  const frames = page.getByRole('list', { name: 'Stack frames' }).getByRole('listitem');
  await expect(frames.first()).toBeVisible();
  // Most recent call first: the handler that threw is ours, React's frames are not.
  await expect(frames.first()).toContainText('in app');
  const react = frames.filter({ hasText: /react-dom|vendor-react-/ });
  await expect(react.first()).toBeVisible();
  for (const frame of await react.all()) await expect(frame).not.toContainText('in app');
});
