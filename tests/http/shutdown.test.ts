/**
 * Shutdown: failure reports still on their way to Sentry get a bounded moment before the
 * process exits, so the events of a server's last moments are not lost with it.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { FakeSentry } from '#tests/fixtures/fake-sentry';
import type { BuiltServer } from '#tests/support/built-server';
import { startExampleServerWithFakeSentry } from '#tests/support/example-server-with-fake-sentry';

let sentry: FakeSentry;
let server: BuiltServer;
let stop: (() => Promise<void>) | undefined;

beforeEach(async () => {
  ({ server, sentry, stop } = await startExampleServerWithFakeSentry());
  // Sentry takes the report and holds its answer: the report is on its way at SIGTERM.
  sentry.behave({ kind: 'hang' });
  const page = await fetch(`${server.url}/sentry-example-page/ssr-error`);
  expect(page.status).toBe(500);
  await sentry.waitForRequests(1);
});
afterEach(() => stop?.());

it('waits for a report Sentry has not answered yet, and exits once it has', async () => {
  const stopped = server.stop();
  await server.waitForOutput(/delivering 1 failure report\(s\) before exit/);
  expect(server.exitCode()).toBeNull();

  sentry.releaseHeld();
  await stopped;

  expect(server.exitCode()).toBe(0);
  expect(server.output()).not.toContain('not yet delivered');
});

it('exits after a bounded wait when Sentry never answers, and says so', async () => {
  await server.stop();

  expect(server.output()).toMatch(/delivering 1 failure report\(s\) before exit \(up to 2000 ms\)/);
  expect(server.output()).toContain('shutting down with failure reports not yet delivered');
});
