/**
 * The root error boundary in a real browser against the production build: client-side
 * failures, server-side failures after hydration (no hydration error), and the app staying
 * usable afterwards.
 */
import { expect, type Page, test } from '@playwright/test';
import { CLIENT_FAILURE_MESSAGE, SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';
import type { ReceivedRequest } from '#tests/fixtures/fake-sentry';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { errorEvents } from '#tests/support/received-envelopes';
import { waitForHydration } from './support/hydration';
import { collectPageErrors, HYDRATION_ERROR } from './support/page-errors';
import { throwInPage, waitForSentryClient } from './support/page-sdk';

let server: BuiltServer;

test.beforeAll(async () => {
  server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: '1' });
});
test.afterAll(async () => {
  await server?.stop();
});

/** Console errors and uncaught page errors, to look for React hydration failures. */
/**
 * The messages of the error events the page sends to the tunnel, as they leave (one per
 * envelope whose body contains `"type":"event"`).
 */
function watchEventEnvelopes(page: Page): string[] {
  const messages: string[] = [];
  page.on('request', (request) => {
    const body = request.postDataBuffer();
    if (new URL(request.url()).pathname !== '/monitoring' || !body) return;
    if (!body.includes('"type":"event"')) return;
    messages.push(...errorEvents([{ body } as ReceivedRequest]).map((event) => event.message));
  });
  return messages;
}

/**
 * Sends a control error and waits until the tunnel has stored it: events are sent in order, so
 * whatever the SDK was going to send about an earlier failure has been sent by then.
 */
async function sendControlError(page: Page, message: string): Promise<void> {
  const stored = page.waitForResponse(
    (response) =>
      new URL(response.url()).pathname === '/monitoring' &&
      (response.request().postData() ?? '').includes(message),
  );
  await throwInPage(page, message);
  expect((await stored).status()).toBe(200);
}

test('"Throw render error" is reported exactly once', async ({ page }) => {
  const events = watchEventEnvelopes(page);
  await page.goto(`${server.url}/sentry-example-page`);
  await waitForSentryClient(page);
  await waitForHydration(page);
  await page.getByRole('button', { name: 'Throw render error' }).click();
  await expect(page.getByText(CLIENT_FAILURE_MESSAGE)).toBeVisible();
  const renderErrors = () => events.filter((message) => message.includes('render-secret-5e7f'));
  await expect.poll(() => renderErrors().length).toBe(1);

  await sendControlError(page, 'control after the render error');
  expect(renderErrors()).toHaveLength(1);
});

test('a loader failing during SSR is not reported again by the browser', async ({ page }) => {
  const events = watchEventEnvelopes(page);
  await page.goto(`${server.url}/sentry-example-page/ssr-error`);
  await expect(page.getByText(SERVER_FAILURE_MESSAGE)).toBeVisible();
  await waitForSentryClient(page);

  await sendControlError(page, 'control after the SSR failure');
  expect(events.filter((message) => message !== 'control after the SSR failure')).toEqual([]);
});

test('a failing server function is not reported again by the browser', async ({ page }) => {
  const events = watchEventEnvelopes(page);
  await page.goto(`${server.url}/sentry-example-page`);
  await waitForSentryClient(page);
  await waitForHydration(page);
  await page.getByRole('button', { name: 'Call failing server function' }).click();
  await expect(page.getByRole('status')).toHaveText(/^The server function failed, digest /);

  await sendControlError(page, 'control after the server function');
  expect(events.filter((message) => message !== 'control after the server function')).toEqual([]);
});

test('a render failure during SSR shows the server view with its digest and is not reported by the browser', async ({
  page,
}) => {
  const consoleErrors = collectPageErrors(page);
  const events = watchEventEnvelopes(page);
  const response = await page.goto(`${server.url}/sentry-example-page?example-failure=render`);
  expect(response?.status()).toBe(500);
  const html = (await response?.text()) ?? '';
  // React streams the failed boundary as a client-render marker carrying the server's digest.
  const serverDigest = /data-dgst="([0-9a-f]{10})"/.exec(html)?.[1];
  expect(serverDigest).toBeDefined();
  await waitForSentryClient(page);
  await waitForHydration(page);
  await expect(page.getByText(SERVER_FAILURE_MESSAGE)).toBeVisible();
  await expect(page.getByTestId('error-digest')).toHaveText(`Digest: ${serverDigest}`);
  await expect(page.getByText(CLIENT_FAILURE_MESSAGE)).toHaveCount(0);

  await sendControlError(page, 'control after the SSR render failure');
  expect(events.filter((message) => message !== 'control after the SSR render failure')).toEqual(
    [],
  );
  expect(consoleErrors.filter((text) => HYDRATION_ERROR.test(text))).toEqual([]);
});

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
  const consoleErrors = collectPageErrors(page);
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
  const consoleErrors = collectPageErrors(page);
  // On / itself: the home route's match then exists in the browser without its data.
  const response = await page.goto(`${server.url}/?example-failure=root-before-load`);
  expect(response?.status()).toBe(500);
  await waitForHydration(page);
  await expect(page.getByText(SERVER_FAILURE_MESSAGE)).toBeVisible();
  await expect(page.getByTestId('error-digest')).toHaveText(/^Digest: [0-9a-f]{10}$/);
  // Before the fix the browser hydrated the child page over the error (React #418).
  await expect(page.getByTestId('monitoring-mode')).toHaveCount(0);
  expect(consoleErrors.filter((text) => HYDRATION_ERROR.test(text))).toEqual([]);

  // Without preloading on hover, a client-side move home rendered that empty match and failed
  // ("a client-side exception"); the link home starts from a fresh load instead.
  await page.getByRole('link', { name: 'Go to the home page' }).click();
  await expect(page).toHaveURL(`${server.url}/`);
  await expect(page.getByTestId('monitoring-mode')).toBeVisible();
  await expect(page.getByText(CLIENT_FAILURE_MESSAGE)).toHaveCount(0);
});

test('a page whose root beforeLoad failed still reports browser errors, and so does the next', async ({
  page,
}) => {
  // The config comes with the router, not with the root's data: the failed root still has it.
  await page.goto(`${server.url}/about?example-failure=root-before-load`);
  await waitForHydration(page);
  await expect(page.getByText(SERVER_FAILURE_MESSAGE)).toBeVisible();
  await waitForSentryClient(page);
  await sendControlError(page, 'reported from the failed page');

  // The navigation's Home link moves client-side (the fallback's own link reloads the page).
  await page.getByRole('navigation').getByRole('link', { name: 'Home' }).click();
  await expect(page.getByTestId('monitoring-mode')).toBeVisible();
  await sendControlError(page, 'reported after the root failure');
});
