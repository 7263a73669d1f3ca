/**
 * `npm run dev` prints server failures as a short block whose frames name our TypeScript line,
 * as the built server's stacks do: Node's source maps read vite's inline maps (app.config.ts
 * turns them on).
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

test('a loader failure in development prints a short block: message, code frame, our line, the digest', async () => {
  const mark = dev.output().length;
  const response = await fetch(`${dev.url}/sentry-example-page/ssr-error`, {
    headers: { 'user-agent': BROWSER_USER_AGENT },
  });
  expect(response.status).toBe(500);
  const html = await response.text();
  await dev.waitForOutput(/library frames?\n/, 30_000);
  const printed = dev.output().slice(mark);
  const start = printed.indexOf('✖ loader of /sentry-example-page/ssr-error');
  expect(start).toBeGreaterThanOrEqual(0);
  const block = printed.slice(start, printed.indexOf('library frame', start));
  const digest = /digest ([0-9a-f]+)/.exec(block)?.[1];
  expect(html).toContain(`Digest: ${digest}`);
  expect(block).toContain('Error: Sentry example: loader failed during SSR');
  // The line of the throw in the route file; vite's transformed code has it further down.
  const line = exampleLoaderLine();
  expect(block).toContain(`${EXAMPLE_LOADER_FILE}:${line}:`);
  expect(block).toMatch(new RegExp(`> ${line} \\|\\s+throw new Error\\(`));
  expect(block).toMatch(
    new RegExp(`at (Object\\.)?loader \\(${EXAMPLE_LOADER_FILE}:${line}:\\d+\\)`),
  );
  // Library frames counted, not listed; no JSON line in development.
  expect(block).not.toContain('node_modules');
  expect(printed).not.toContain('{"level":"error"');
  expect(`${block}library frames`.split('\n').length).toBeLessThan(30);
}, 90_000);
