/**
 * The built server with the example routes on, reporting its failures to a fake Sentry: the
 * setup of every HTTP test that checks what a server failure logs and what Sentry receives.
 */
import { afterAll, beforeAll } from 'vitest';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';

/** The project of the server's SENTRY_DSN on the fake Sentry. */
const REPORTING_PROJECT = '42';

export interface ExampleServerWithFakeSentry {
  server: BuiltServer;
  sentry: FakeSentry;
  /** Stops the server, then the fake Sentry. */
  stop(): Promise<void>;
}

export async function startExampleServerWithFakeSentry(): Promise<ExampleServerWithFakeSentry> {
  const sentry = await startFakeSentry();
  let server: BuiltServer;
  try {
    server = await startBuiltServer({
      ENABLE_EXAMPLE_ROUTES: '1',
      SENTRY_DSN: sentry.dsn(REPORTING_PROJECT),
    });
  } catch (error) {
    await sentry.close();
    throw error;
  }
  return {
    server,
    sentry,
    async stop() {
      await server.stop();
      await sentry.close();
    },
  };
}

/**
 * The same, for every test of the calling file or `describe`: started before the first, stopped
 * after the last. Read `server` and `sentry` inside tests and hooks only.
 */
export function exampleServerWithFakeSentry(): ExampleServerWithFakeSentry {
  const app = {} as ExampleServerWithFakeSentry;
  beforeAll(async () => {
    Object.assign(app, await startExampleServerWithFakeSentry());
  });
  afterAll(() => app.stop?.());
  return app;
}
