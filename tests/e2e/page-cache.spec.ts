/**
 * Pages from the page cache in Chromium (decision 1300): their inline scripts are allowed by
 * hash, not by a nonce, and every one of them runs (the recorder, Start's hydration data,
 * React's streamed boundary) with no violation; the page hydrates and reports an error through
 * the tunnel; a script injected later has no hash and is blocked.
 */
import { expect, type Response, test } from '@playwright/test';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { errorMessages } from '#tests/support/received-envelopes';
import { until } from '#tests/support/wait-for';
import { appWithFakeSentry } from './support/app-with-fake-sentry';
import { waitForHydration } from './support/hydration';
import { expectInjectedScriptBlocked, recordViolations } from './support/page-errors';
import { throwInPage } from './support/page-sdk';

const app = appWithFakeSentry((fake) => ({
  SENTRY_DSN: fake.dsn(),
  SENTRY_TRACES_SAMPLE_RATE: '0',
}));

// A desktop Chrome's, as visitors send: headless Chromium's own names it a crawler (isbot), which
// gets pages rendered (and kept) for crawlers.
test.use({ userAgent: BROWSER_USER_AGENT });

/** Asks for the page until the cache answers it (the render that fills it comes first). */
async function fillCache(path: string): Promise<void> {
  await until(
    `${path} to come from the cache`,
    async () => {
      const response = await fetch(`${app.server.url}${path}`, {
        headers: { 'user-agent': BROWSER_USER_AGENT },
      });
      await response.arrayBuffer();
      return response.headers.get('content-security-policy')?.includes("'sha256-") === true;
    },
    { timeoutMs: 15_000 },
  );
}

/** The page came from the cache: its policy lists hashes and no nonce, its scripts carry none. */
async function expectFromCache(response: Response | null): Promise<void> {
  const policy = (await response?.allHeaders())?.['content-security-policy'] ?? '';
  expect(policy).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+;/);
  expect(policy).not.toContain('nonce-');
  expect(policy).not.toContain('unsafe-inline');
  expect(await response?.text()).not.toContain('nonce=');
}

test('a cached page runs every inline script, hydrates and reports an error, with no violation', async ({
  page,
}) => {
  await fillCache('/about');
  const violations = await recordViolations(page);
  const response = await page.goto(`${app.server.url}/about`);
  await expectFromCache(response);
  await waitForHydration(page);
  // The recorder ran (inline, first in the head) and Start's inline data did: React hydrated.
  expect(await page.evaluate(() => Reflect.has(window, '__monitoringRecorder'))).toBe(true);

  await throwInPage(page, 'thrown on a page from the cache');
  await expect
    .poll(() => errorMessages(app.ingest.received))
    .toContain('thrown on a page from the cache');
  expect(await violations()).toEqual([]);
});

test('the cached home page runs React’s streamed script: its deferred section is in place', async ({
  page,
}) => {
  await fillCache('/');
  const violations = await recordViolations(page);
  const response = await page.goto(`${app.server.url}/`);
  await expectFromCache(response);
  await waitForHydration(page);
  // Streamed after the shell, moved into place by React's inline `$RC` script.
  await expect(page.getByTestId('health-report')).toBeVisible();
  await expect(page.getByText("Sampling the server's event loop…")).toHaveCount(0);
  expect(await violations()).toEqual([]);
});

test('a script injected into a cached page is blocked: it has no hash', async ({ page }) => {
  await fillCache('/about');
  const violations = await recordViolations(page);
  const response = await page.goto(`${app.server.url}/about`);
  await expectFromCache(response);
  await waitForHydration(page);
  await expectInjectedScriptBlocked(page, violations);
});
