/**
 * Server functions over HTTP (/_server/<id>): an id that names no server function gets a
 * short 404 and leaves the log alone; real ones still reach Start.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { FAILING_EXAMPLE_FN } from '#tests/support/server-function-paths';

let server: BuiltServer;

beforeAll(async () => {
  server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: '1' });
});
afterAll(async () => {
  await server?.stop();
});

it.each([
  ['POST', '/_server/app_made_up--handler?createServerFn'],
  ['GET', '/_server/app_made_up--handler'],
  ['GET', '/_server/'],
  ['GET', '/_server/constructor'],
  ['GET', '/_server/__proto__'],
])('%s %s answers 404 with a short reason', async (method, path) => {
  const response = await fetch(server.url + path, { method });

  expect(response.status).toBe(404);
  expect(await response.text()).toBe('no such server function');
});

it('still hands a real server function to Start', async () => {
  const response = await fetch(`${server.url}${FAILING_EXAMPLE_FN}?createServerFn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ data: { label: 'real' }, context: {} }),
  });

  // The example function fails on purpose: a 500 from it, not a 404 from us.
  expect(response.status).toBe(500);
  await response.text();
});

it('logs nothing for made-up ids (Start would print its whole manifest)', async () => {
  const mark = server.output().length;
  for (let i = 0; i < 20; i++) {
    const response = await fetch(`${server.url}/_server/made-up-${i}`, { method: 'POST' });
    await response.text();
  }
  expect(await server.printedSince(mark)).toBe('');
});
