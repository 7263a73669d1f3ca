import { test } from '@playwright/test';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';

export interface AppWithFakeSentry {
  ingest: FakeSentry;
  server: BuiltServer;
}

/**
 * The production build reporting to a fake Sentry ingest, for the tests of one spec file: both
 * start before its first test (`env` gets the ingest, to name it in SENTRY_DSN), the ingest
 * forgets what it received before each test, both stop after the last. Read `ingest` and
 * `server` inside tests and hooks only: they exist once the first hook has run.
 */
export function appWithFakeSentry(
  env: (ingest: FakeSentry) => Record<string, string>,
): AppWithFakeSentry {
  const app = {} as AppWithFakeSentry;
  test.beforeAll(async () => {
    app.ingest = await startFakeSentry();
    app.server = await startBuiltServer(env(app.ingest));
  });
  test.afterAll(async () => {
    await app.server?.stop();
    await app.ingest?.close();
  });
  test.beforeEach(() => app.ingest.reset());
  return app;
}
