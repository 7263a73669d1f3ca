/**
 * The example page's failures with WEB_CONCURRENCY=2, in Chromium against the production build:
 * they behave as with one process (./error-boundary.spec.ts). The primary hands new connections
 * to the workers in turn, so both serve. A
 * failure is stored once and logged once whichever worker met it, and the same bug has the same
 * digest on both.
 */
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { CLIENT_FAILURE_MESSAGE, SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { readInbox, tagOf } from '#tests/support/inbox-database';
import { rawRequest } from '#tests/support/raw-request';
import { throwClientErrorOnExamplePage } from './support/example-page';
import { waitForHydration } from './support/hydration';

let server: BuiltServer;
let dir: string;

test.beforeAll(async () => {
  dir = join(mkdtempSync(join(tmpdir(), 'workers-e2e-')), 'inbox');
  server = await startBuiltServer({
    ENABLE_EXAMPLE_ROUTES: '1',
    WEB_CONCURRENCY: '2',
    MONITORING_INBOX_DIR: dir,
  });
});
test.afterAll(async () => {
  await server?.stop();
});

/** How many events the inbox counted for the issue whose title names `text` (0: none). */
function countOfIssueNaming(text: string): number {
  return readInbox(dir).issues.find((issue) => issue.title.includes(text))?.count ?? 0;
}

test('the three buttons of the example page, as with one process', async ({ page }) => {
  expect(server.output()).toContain('with 2 workers');
  // "Throw client error": reported and stored, nothing on the page changes.
  const stored = await throwClientErrorOnExamplePage(page, server.url);
  expect(stored.status()).toBe(200);
  await expect(page.getByRole('heading', { name: 'Sentry example page' })).toBeVisible();

  // "Throw render error": the client-side message, no digest.
  await page.getByRole('button', { name: 'Throw render error' }).click();
  await expect(page.getByText(CLIENT_FAILURE_MESSAGE)).toBeVisible();
  await expect(page.getByTestId('error-digest')).toHaveCount(0);
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByRole('heading', { name: 'Sentry example page' })).toBeVisible();

  // "Call failing server function": a digest and nothing of the message.
  await page.getByRole('button', { name: 'Call failing server function' }).click();
  const status = page.getByRole('status');
  await expect(status).toHaveText(/^The server function failed, digest [0-9a-f]{10}\.$/);
  const digest = /digest ([0-9a-f]{10})/.exec((await status.textContent()) ?? '')?.[1];

  await expect.poll(() => countOfIssueNaming('client error thrown in an event handler')).toBe(1);
  await expect.poll(() => countOfIssueNaming('render-secret-5e7f')).toBe(1);
  // The server's failure, logged once by the worker that met it, stored once with its digest.
  await expect
    .poll(() => readInbox(dir).events.filter((stored) => tagOf(stored.event, 'digest') === digest))
    .toHaveLength(1);
  expect(server.output().match(new RegExp(`"digest":"${digest}"`, 'g'))).toHaveLength(1);
});

test('a loader failing during SSR has the same digest on both workers', async ({ page }) => {
  const url = `${server.url}/sentry-example-page/ssr-error`;
  // Three requests, each on a connection of its own, one after another and with no browser
  // open: the primary hands new connections to the workers in turn, so both meet the failure.
  // (A browser's page opens connections of its own for its scripts, which would decide instead
  // which worker the next page view reaches.)
  const { port } = new URL(server.url);
  const digests: string[] = [];
  for (let request = 0; request < 3; request++) {
    const answer = await rawRequest(url, {
      headers: { 'user-agent': BROWSER_USER_AGENT },
      connect: () => connect(Number(port), '127.0.0.1'),
    });
    expect(answer.status).toBe(500);
    digests.push(/Digest: ([0-9a-f]{10})/.exec(answer.text)?.[1] ?? 'none');
  }
  // Then in the browser: the generic page, hydrated, with the same digest.
  const response = await page.goto(url);
  expect(response?.status()).toBe(500);
  await waitForHydration(page);
  await expect(page.getByText(SERVER_FAILURE_MESSAGE)).toBeVisible();
  await expect(page.getByText('ssr-loader-secret')).toHaveCount(0);
  const shown = ((await page.getByTestId('error-digest').textContent()) ?? '').trim();
  expect(shown).toMatch(/^Digest: [0-9a-f]{10}$/);
  const digest = shown.replace('Digest: ', '');
  expect(digests).toEqual([digest, digest, digest]);
  // Both workers rendered it: each failure's log line names its worker.
  const workers = server
    .output()
    .split('\n')
    .filter((line) => line.includes(`"digest":"${digest}"`))
    .map((line) => JSON.parse(line.slice(line.indexOf('{'))).worker);
  expect(workers).toHaveLength(4);
  expect(new Set(workers)).toEqual(new Set([1, 2]));
});
