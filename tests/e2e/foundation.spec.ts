import { expect, test } from '@playwright/test';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { waitUntilReactOwns } from './support/hydration';
import { collectPageErrors } from './support/page-errors';

let server: BuiltServer;

test.beforeAll(async () => {
  server = await startBuiltServer();
});
test.afterAll(async () => {
  await server?.stop();
});

test('the home page hydrates: its button calls the server function from the browser', async ({
  page,
}) => {
  const consoleErrors = collectPageErrors(page);
  await page.goto(`${server.url}/`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('tanstack-start-monitoring');
  await expect(page.getByTestId('health-report')).toBeVisible();

  const serverFnCall = page.waitForRequest((request) => request.url().includes('/_server'));
  await page.getByRole('button', { name: 'Sample again' }).click();
  await serverFnCall;
  await expect(page.getByRole('button', { name: 'Sample again' })).toBeEnabled();
  await expect(page.getByRole('alert')).toHaveCount(0);
  expect(consoleErrors).toEqual([]);
});

test('moving between pages is client-side', async ({ page }) => {
  await page.goto(`${server.url}/`);
  await expect(page.getByTestId('health-report')).toBeVisible();
  // Server-rendered links work before hydration too, as full page loads: wait until React owns
  // the link (its props are on the element), or a quick click races hydration.
  await page.waitForFunction(() => {
    const link = document.querySelector('a[href="/about"]');
    return link !== null && Object.keys(link).some((key) => key.startsWith('__reactProps'));
  });
  // A full page load would drop this marker.
  await page.evaluate(() => {
    (window as unknown as { stillHere: boolean }).stillHere = true;
  });
  await page.getByRole('link', { name: 'How errors are handled' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('How errors are handled');
  expect(page.url()).toBe(`${server.url}/about`);
  await page.getByRole('link', { name: 'Home' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('tanstack-start-monitoring');
  expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(
    true,
  );
});

// The example pages answer 404 in production without ENABLE_EXAMPLE_ROUTES: the same page,
// inside the same document, as an unknown path.
for (const path of ['/definitely/not/here', '/sentry-example-page']) {
  test(`${path} shows the not-found page with 404, in the site, hydrated`, async ({ page }) => {
    // The page itself answers 404; nothing else may fail.
    const consoleErrors = collectPageErrors(page, { expectedFailures: [path] });
    const response = await page.goto(`${server.url}${path}`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await expect(
      page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'How errors are handled' }),
    ).toBeVisible();
    const home = page.getByRole('link', { name: 'Go to the home page' });
    await waitUntilReactOwns(home);
    // The tab and the history say it too, also once the browser has taken the page over.
    await expect(page).toHaveTitle('Page not found · Start Monitoring');
    await home.click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('tanstack-start-monitoring');
    // A hydration mismatch (React error #418) would be logged here.
    expect(consoleErrors).toEqual([]);
  });
}
