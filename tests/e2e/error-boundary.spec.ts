/**
 * The root error boundary in a real browser against the production build: client-side
 * failures, server-side failures after hydration (no hydration error), and the app staying
 * usable afterwards.
 */
import { expect, type Page, test } from '@playwright/test';
import { CLIENT_FAILURE_MESSAGE, SERVER_FAILURE_MESSAGE } from '../../app/monitoring/failure-view';
import { type BuiltServer, startBuiltServer } from '../support/built-server';

let server: BuiltServer;

test.beforeAll(async () => {
  server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: '1' });
});
test.afterAll(async () => {
  await server?.stop();
});

/** Console errors and uncaught page errors, to look for React hydration failures. */
function watchConsole(page: Page): string[] {
  const messages: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') messages.push(message.text());
  });
  page.on('pageerror', (error) => messages.push(error.message));
  return messages;
}

const HYDRATION_ERROR = /hydrat|#418|#423|#425|did not match/i;

/** Hydrated: React has taken over the document (hydrateRoot marks its container). */
async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    Object.keys(document).some((key) => key.startsWith('__reactContainer$')),
  );
  await page.waitForLoadState('networkidle');
}

test('"Throw render error" shows the client-side message, and the app recovers', async ({
  page,
}) => {
  await page.goto(`${server.url}/sentry-example-page`);
  await waitForHydration(page);
  await page.getByRole('button', { name: 'Throw render error' }).click();
  await expect(page.getByText(CLIENT_FAILURE_MESSAGE)).toBeVisible();
  await expect(page.getByText(SERVER_FAILURE_MESSAGE)).toHaveCount(0);
  await expect(page.getByTestId('error-digest')).toHaveCount(0);
  await expect(page.getByText('render error thrown while rendering')).toHaveCount(0);

  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByRole('heading', { name: 'Sentry example page' })).toBeVisible();

  await page.getByRole('button', { name: 'Throw render error' }).click();
  await expect(page.getByText(CLIENT_FAILURE_MESSAGE)).toBeVisible();
  await page.getByRole('link', { name: 'How errors are handled' }).click();
  await expect(page.getByRole('heading', { name: 'How errors are handled' })).toBeVisible();
});

test('"Call failing server function" gets a digest and nothing of the message', async ({
  page,
}) => {
  await page.goto(`${server.url}/sentry-example-page`);
  await waitForHydration(page);
  await page.getByRole('button', { name: 'Call failing server function' }).click();
  await expect(page.getByRole('status')).toHaveText(
    /^The server function failed, digest [0-9a-f]{10}\.$/,
  );
});

test('a loader failing during SSR shows the server-side message and digest after hydration', async ({
  page,
}) => {
  const consoleErrors = watchConsole(page);
  const response = await page.goto(`${server.url}/sentry-example-page/ssr-error`);
  expect(response?.status()).toBe(500);
  await waitForHydration(page);
  await expect(page.getByText(SERVER_FAILURE_MESSAGE)).toBeVisible();
  await expect(page.getByTestId('error-digest')).toHaveText(/^Digest: [0-9a-f]{10}$/);
  await expect(page.getByText('ssr-loader-secret')).toHaveCount(0);
  expect(consoleErrors.filter((text) => HYDRATION_ERROR.test(text))).toEqual([]);

  await page.getByRole('link', { name: 'How errors are handled' }).click();
  await expect(page.getByRole('heading', { name: 'How errors are handled' })).toBeVisible();
  await expect(page.getByText(SERVER_FAILURE_MESSAGE)).toHaveCount(0);
});

test('a failing root beforeLoad stays an error page after hydration', async ({ page }) => {
  const consoleErrors = watchConsole(page);
  const response = await page.goto(`${server.url}/about?example-failure=root-before-load`);
  expect(response?.status()).toBe(500);
  await waitForHydration(page);
  await expect(page.getByText(SERVER_FAILURE_MESSAGE)).toBeVisible();
  await expect(page.getByTestId('error-digest')).toHaveText(/^Digest: [0-9a-f]{10}$/);
  // Before the fix the browser hydrated the child page over the error (React #418).
  await expect(page.getByRole('heading', { name: 'How errors are handled' })).toHaveCount(0);
  expect(consoleErrors.filter((text) => HYDRATION_ERROR.test(text))).toEqual([]);

  await page.getByRole('link', { name: 'Go to the home page' }).click();
  await expect(page).toHaveURL(`${server.url}/`);
  await expect(page.getByTestId('monitoring-mode')).toBeVisible();
});
