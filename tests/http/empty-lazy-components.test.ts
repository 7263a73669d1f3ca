/**
 * A route with `errorComponent: undefined` (the trap route) is checked when it is first
 * rendered, not at the first render of any page: a route nobody visits must not put a
 * warning into every production server's log.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BROWSER_USER_AGENT } from '../support/browser-agent';
import { type BuiltServer, startBuiltServer } from '../support/built-server';

const TRAP = '/sentry-example-page/missing-error-component';
const TRAP_WARNING = `[monitoring] route ${TRAP}: errorComponent is an empty lazy component`;

let server: BuiltServer;

beforeAll(async () => {
  server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: '1' });
});
afterAll(async () => {
  await server?.stop();
});

it('warns about the trap route when it is first rendered, and only then', async () => {
  const about = await fetch(`${server.url}/about`, {
    headers: { 'user-agent': BROWSER_USER_AGENT },
  });
  expect(about.status).toBe(200);
  await about.text();
  // A line of our own on the same stream (stderr) between the two pages: anything the first
  // page logged comes before it.
  const marker = await fetch(`${server.url}/monitoring`, { method: 'POST' });
  expect(marker.status).toBe(400);
  await server.waitForOutput(/\[tunnel\] 400 query parameter "o" is required/);

  for (let visit = 0; visit < 2; visit++) {
    const trap = await fetch(`${server.url}${TRAP}`, { signal: AbortSignal.timeout(10_000) });
    expect(trap.status).toBe(500);
    await trap.text();
  }
  await server.waitForOutput(new RegExp(TRAP_WARNING.replace(/[[\]/.*?()`]/g, '\\$&')));

  const output = server.output();
  expect(output.indexOf(TRAP_WARNING)).toBeGreaterThan(output.indexOf('[tunnel] 400'));
  expect(output.split(TRAP_WARNING).length - 1).toBe(1);
});
