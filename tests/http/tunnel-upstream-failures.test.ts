/** Sentry unreachable, resetting or silent: 502 / 504, and the server keeps serving. */
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { eventId, send, textEnvelope } from '#tests/support/envelopes';

let fake: FakeSentry;
let server: BuiltServer;
let unreachableDsn: string;

/** A port that was free a moment ago: nothing listens there. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((done) => probe.close(() => done()));
  return port;
}

beforeAll(async () => {
  fake = await startFakeSentry();
  unreachableDsn = `http://publickey@127.0.0.1:${await closedPort()}/7`;
  server = await startBuiltServer({
    SENTRY_DSN: fake.dsn('1'),
    SENTRY_TUNNEL_ALLOWED_DSNS: unreachableDsn,
    SENTRY_TUNNEL_TIMEOUT_MS: '1000',
  });
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});
beforeEach(() => fake.reset());

const tunnel = (query = '?o=0&p=1') => `${server.url}/monitoring${query}`;

describe('upstream failures', () => {
  it('answers 502 when Sentry is unreachable, and forwards nothing elsewhere', async () => {
    const answer = await send(tunnel('?o=0&p=7'), { body: textEnvelope(unreachableDsn) });
    expect(answer.status).toBe(502);
    expect(answer.text).toMatch(/ECONNREFUSED/);
    expect(fake.started()).toBe(0);
    await server.waitForOutput(/\[tunnel\] 502 Sentry unreachable: ECONNREFUSED/);
  });

  it('answers 502 when Sentry resets the connection', async () => {
    fake.behave({ kind: 'reset' });
    const answer = await send(tunnel(), { body: textEnvelope(fake.dsn('1')) });
    expect(answer.status).toBe(502);
    await server.waitForOutput(/\[tunnel\] 502 Sentry unreachable: ECONNRESET/);
  });

  it('answers 504 when Sentry does not answer within SENTRY_TUNNEL_TIMEOUT_MS', async () => {
    fake.behave({ kind: 'hang' });
    const answer = await send(tunnel(), { body: textEnvelope(fake.dsn('1')) });
    expect(answer.status).toBe(504);
    expect(answer.text).toMatch(/within 1000 ms/);
    // It reached the (silent) ingest once, and was not retried.
    expect(fake.received).toHaveLength(1);
  });

  it('keeps serving pages and forwarding after upstream failures', async () => {
    fake.behave({ kind: 'reset' });
    const failures = await Promise.all(
      Array.from({ length: 20 }, () => send(tunnel(), { body: textEnvelope(fake.dsn('1')) })),
    );
    expect(failures.map((answer) => answer.status)).toEqual(Array(20).fill(502));
    fake.reset();

    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    const id = eventId();
    const answer = await send(tunnel(), { body: textEnvelope(fake.dsn('1'), id) });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ id });
  });
});
