/**
 * `npm run dev` in Chromium: every failure a developer causes opens vite's error overlay with
 * the real message and our line (resolved through the dev server's maps), over the same generic
 * page production shows; a browser failure prints one terminal line; /errors names the line of
 * a client throw. The production build has none of this (tests/http/page-failures.test.ts).
 */
import { expect, type Page, test } from '@playwright/test';
import { type DevServer, startDevServer } from '#tests/support/dev-server';
import { EXAMPLE_LOADER_FILE, exampleLoaderLine, lineOf } from '#tests/support/source-line';
import { waitForHydration } from './support/hydration';

const EXAMPLE_PAGE_FILE = 'app/routes/sentry-example-page/index.tsx';
const EXAMPLE_FUNCTIONS_FILE = 'app/server/example.functions.ts';

let dev: DevServer;

test.beforeAll(async () => {
  dev = await startDevServer();
});
test.afterAll(async () => {
  await dev?.stop();
});
// The first visit compiles the page's modules.
test.setTimeout(120_000);

/** The overlay's text, once vite's element is on the page. */
async function overlayText(page: Page): Promise<string> {
  const overlay = page.locator('vite-error-overlay');
  await expect(overlay).toBeAttached({ timeout: 30_000 });
  return overlay.evaluate(
    (element) => element.shadowRoot?.querySelector('.window')?.textContent ?? '',
  );
}

/** The example page, hydrated: its buttons do something only then. */
async function openExamplePage(page: Page): Promise<void> {
  await page.goto(`${dev.url}/sentry-example-page`);
  await waitForHydration(page);
}

test('a loader failure during SSR: the real message and our line over the generic page', async ({
  page,
}) => {
  const response = await page.goto(`${dev.url}/sentry-example-page/ssr-error`);
  expect(response?.status()).toBe(500);
  const text = await overlayText(page);
  expect(text).toContain('Sentry example: loader failed during SSR');
  expect(text).toContain(`${EXAMPLE_LOADER_FILE}:${exampleLoaderLine()}:`);
  expect(text).toMatch(new RegExp(`> ${exampleLoaderLine()} \\|\\s+throw new Error\\(`));
  const digest = /digest ([0-9a-f]{10})/.exec(text)?.[1];
  // Behind it, the page production shows: the generic message and the same digest.
  await expect(page.getByTestId('error-digest')).toHaveText(`Digest: ${digest}`);
  await expect(page.getByTestId('error-fallback')).not.toContainText('loader failed');
});

test('a render failure during SSR names the component’s line', async ({ page }) => {
  await page.goto(`${dev.url}/sentry-example-page?example-failure=render`);
  const text = await overlayText(page);
  expect(text).toContain('Sentry example: render error thrown while rendering');
  expect(text).toContain(
    `${EXAMPLE_PAGE_FILE}:${lineOf(EXAMPLE_PAGE_FILE, "throw new Error('Sentry example: render error")}:`,
  );
});

test('a server function’s failure, though its caller catches it', async ({ page }) => {
  await openExamplePage(page);
  await page.getByRole('button', { name: 'Call failing server function' }).click();
  const text = await overlayText(page);
  expect(text).toContain('Sentry example server function failed for "example page"');
  expect(text).toContain(
    `${EXAMPLE_FUNCTIONS_FILE}:${lineOf(EXAMPLE_FUNCTIONS_FILE, 'throw new Error(`Sentry example server function')}:`,
  );
});

test('a client event handler’s throw: overlay, one terminal line, and /errors name its line', async ({
  page,
}) => {
  const line = lineOf(
    EXAMPLE_PAGE_FILE,
    "throw new Error('Sentry example: client error thrown in an event handler')",
  );
  const mark = dev.output().length;
  await openExamplePage(page);
  await page.getByRole('button', { name: 'Throw client error' }).click();
  const text = await overlayText(page);
  expect(text).toContain('Sentry example: client error thrown in an event handler');
  expect(text).toContain(`at onClick (${EXAMPLE_PAGE_FILE}:${line}:`);
  expect(text).toMatch(/\+ \d+ library frames/);

  await dev.waitForOutput(/✖ browser: .*client error thrown in an event handler.*\n/, 30_000);
  const lines = dev
    .output()
    .slice(mark)
    .split('\n')
    .filter((entry) => entry.includes('✖ browser:'));
  expect(lines).toEqual([
    expect.stringMatching(
      new RegExp(
        `^✖ browser: Error: Sentry example: client error thrown in an event handler · ${EXAMPLE_PAGE_FILE}:${line}:\\d+ · ${dev.url}/sentry-example-page$`,
      ),
    ),
  ]);

  // The report reached the inbox through the tunnel; the list resolves its frame as the build's would.
  await expect(async () => {
    await page.goto(`${dev.url}/errors`);
    await expect(page.getByRole('main')).toContainText(`${EXAMPLE_PAGE_FILE}:${line} in onClick`, {
      timeout: 2_000,
    });
  }).toPass({ timeout: 45_000 });
});
