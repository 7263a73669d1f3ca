/**
 * /errors reads stacks through the build's source maps, in Chromium against the production
 * build with no Sentry account: the example page's client error is shown in our route file,
 * at the throwing line with its source, React's frames folded; the list's row for the issue
 * names that line; a server failure (already mapped by Node) names ssr-error.tsx,
 * project-relative. The errors go through the tunnel: this needs the ingest path.
 */
import { resolve } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { EXAMPLE_LOADER_FILE, exampleLoaderLine, lineOf } from '#tests/support/source-line';
import { throwClientErrorOnExamplePage } from './support/example-page';
import { waitUntilReactOwns } from './support/hydration';
import { waitForSentryClient } from './support/page-sdk';

const ROUTE = 'app/routes/sentry-example-page/index.tsx';
const CLIENT_MESSAGE = 'Sentry example: client error thrown in an event handler';
const THROW_LINE = `throw new Error('${CLIENT_MESSAGE}');`;
/** 1-based, read from the route's source, so the test follows edits to the page. */
const LINE = lineOf(ROUTE, THROW_LINE);
const RENDER_MESSAGE = 'Sentry example: render error thrown while rendering';
const RENDER_LINE = lineOf(ROUTE, `throw new Error('${RENDER_MESSAGE}`);
const SERVER_ROUTE = EXAMPLE_LOADER_FILE;
const SERVER_LINE = exampleLoaderLine();

let server: BuiltServer;

test.beforeAll(async () => {
  server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: 'true' });
});
test.afterAll(async () => {
  await server?.stop();
});

function listed(page: Page, text: string) {
  return page.getByRole('list', { name: 'Issues' }).getByRole('listitem').filter({ hasText: text });
}

test('a client error is shown in our source, its React frames folded, its line in the list', async ({
  page,
}) => {
  expect((await throwClientErrorOnExamplePage(page, server.url)).status()).toBe(200);

  await page.goto(`${server.url}/errors`);
  const ours = listed(page, CLIENT_MESSAGE);
  await expect(ours).toHaveCount(1);
  await expect(ours).toContainText(`${ROUTE}:${LINE} in onClick`);

  await ours.getByRole('link').first().click();
  await expect(page.getByRole('heading', { name: 'Stack trace' })).toBeVisible();
  const frames = page.getByRole('list', { name: 'Stack frames' });
  const top = frames.getByRole('listitem').first();
  await expect(top).toContainText(new RegExp(`^onClick at ${literal(ROUTE)}:${LINE}:\\d+`));
  const marked = top.locator('mark');
  await expect(marked).toHaveCount(1);
  await expect(marked).toHaveText(new RegExp(`^${LINE}\\s+${literal(THROW_LINE)}\\s*$`));
  // Five lines in all: two before, the marked one, two after.
  await expect(top.locator('.source-line')).toHaveCount(5);

  // React's frames, folded under one summary per run, open on a click.
  const folded = page.getByText(/^\d+ library frames?$/).first();
  await expect(folded).toBeVisible();
  const count = Number((await folded.textContent())?.split(' ')[0]);
  expect(count).toBeGreaterThan(1);
  const fold = page.locator('details').filter({ has: folded });
  const inside = fold.getByRole('listitem');
  await expect(inside.first()).toBeHidden();
  await folded.click();
  await expect(inside).toHaveCount(count);
  await expect(inside.first()).toBeVisible();
  await expect(fold).toContainText('react-dom/');
});

test('a browser render error is named by its function, RenderBomb, not by React\'s "Component"', async ({
  page,
}) => {
  await page.goto(`${server.url}/sentry-example-page`);
  await waitForSentryClient(page);
  const eventStored = page.waitForResponse(
    (response) =>
      new URL(response.url()).pathname === '/monitoring' &&
      (response.request().postData() ?? '').includes(RENDER_MESSAGE),
  );
  const button = page.getByRole('button', { name: 'Throw render error' });
  await waitUntilReactOwns(button);
  await button.click();
  expect((await eventStored).status()).toBe(200);

  await page.goto(`${server.url}/errors`);
  const ours = listed(page, RENDER_MESSAGE);
  await expect(ours).toHaveCount(1);
  await expect(ours).toContainText(`${ROUTE}:${RENDER_LINE} in RenderBomb`);

  await ours.getByRole('link').first().click();
  const top = page.getByRole('list', { name: 'Stack frames' }).getByRole('listitem').first();
  await expect(top).toContainText(
    new RegExp(`^RenderBomb at ${literal(ROUTE)}:${RENDER_LINE}:\\d+`),
  );
});

test('a server failure is shown where Node mapped it, project-relative, once, with its source lines', async ({
  page,
}) => {
  const response = await fetch(`${server.url}/sentry-example-page/ssr-error`);
  expect(response.status).toBe(500);
  await response.text();

  const ours = listed(page, 'loader failed during SSR');
  await expect(async () => {
    await page.goto(`${server.url}/errors`);
    await expect(ours).toHaveCount(1, { timeout: 1_000 });
  }).toPass();
  await expect(ours).toContainText(`${SERVER_ROUTE}:${SERVER_LINE} in loader`);

  await ours.getByRole('link').first().click();
  const top = page.getByRole('list', { name: 'Stack frames' }).getByRole('listitem').first();
  await expect(top).toContainText(
    // Ours, so in-app, as the server's Sentry event says too.
    new RegExp(`^loader at ${literal(SERVER_ROUTE)}:${SERVER_LINE}:\\d+ in app`),
  );
  // With its source lines, from the build's maps (decision 1110).
  await expect(top).toContainText("throw new Error('Sentry example: loader failed during SSR");
  const stack = page.locator('section[aria-labelledby="stack-heading"]');
  await expect(stack).not.toContainText(`${resolve('.')}/`);
  await expect(stack).not.toContainText('.output/server');
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
