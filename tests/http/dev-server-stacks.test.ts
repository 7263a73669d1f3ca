/**
 * `npm run dev` logs server failures with stacks that name our TypeScript line, as the built
 * server does: Node's source maps read vite's inline maps (app.config.ts turns them on).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type DevServer, startDevServer } from '#tests/support/dev-server';
import { EXAMPLE_LOADER_FILE, exampleLoaderLine } from '#tests/support/source-line';

let dev: DevServer;
beforeAll(async () => {
  dev = await startDevServer();
}, 90_000);
afterAll(() => dev?.stop());

test('a loader failure in development logs the route file, its line and the loader', async () => {
  const response = await fetch(`${dev.url}/sentry-example-page/ssr-error`, {
    headers: { 'user-agent': BROWSER_USER_AGENT },
  });
  expect(response.status).toBe(500);
  await response.text();
  const line = await dev.waitForOutput(/\{"level":"error".*"phase":"loader".*\}/, 30_000);
  const { stack } = JSON.parse(line) as { stack: string };
  // The line of the throw in the route file; vite's transformed code has it further down.
  expect(stack.split('\n')[1]).toMatch(
    new RegExp(
      `^\\s+at (Object\\.)?loader \\(.*${EXAMPLE_LOADER_FILE}:${exampleLoaderLine()}:\\d+\\)$`,
    ),
  );
}, 90_000);
