/**
 * A first visit to `npm run dev` on a cold dependency cache loads the page once: vite
 * pre-bundles at start what the pages import (app.config.ts's CLIENT_DEPENDENCIES), instead of
 * finding it on the first visit and reloading the page ("optimized dependencies changed").
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { type DevServer, startDevServer } from '#tests/support/dev-server';
import { waitForHydration } from './support/hydration';

let dev: DevServer;

test.beforeAll(async () => {
  // Cold: a cache no other dev server has filled.
  dev = await startDevServer({ DEV_CACHE_DIR: mkdtempSync(join(tmpdir(), 'dev-cache-')) });
});
test.afterAll(async () => {
  await dev?.stop();
});
test.setTimeout(120_000);

test('each page of a first visit loads once, on a cold dependency cache', async ({ page }) => {
  const loads: string[] = [];
  page.on('load', () => loads.push(new URL(page.url()).pathname));
  // Every page the navigation reaches, each by a link, as a first-time user would.
  await page.goto(`${dev.url}/`);
  await waitForHydration(page);
  for (const link of ['How errors are handled', 'Example page', 'Error inbox']) {
    await page.getByRole('navigation').getByRole('link', { name: link }).click();
    await page.waitForLoadState('networkidle');
  }
  // The optimizer logs before it reloads; once the pages are idle it has said all it will.
  expect(dev.output()).not.toMatch(/optimized dependencies changed|new dependencies optimized/);
  // The inbox link is a document link (decision 0860): two loads, no more.
  expect(loads).toEqual(['/', '/errors']);
});
