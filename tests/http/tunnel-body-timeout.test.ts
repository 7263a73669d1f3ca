/**
 * Slow clients against the built server, on raw sockets: the whole envelope must arrive within
 * SENTRY_TUNNEL_BODY_TIMEOUT_MS (else 408 and the socket closed), and after answers that leave
 * a body unread (408, 413, 504) the server closes the socket instead of reading on.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { LINES_PER_KIND_PER_MINUTE } from '#app/server/logging/rate-limited-log';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { readInbox } from '#tests/support/inbox-database';
import { type SlowClient, slowPost, within } from '#tests/support/slow-client';
import { until } from '#tests/support/wait-for';

/** A header line and the start of an event item: the tunnel can route it, never finish it. */
const envelopeStart = (dsn: string) =>
  Buffer.from(`${JSON.stringify({ dsn, event_id: 'a'.repeat(32) })}\n{"type":"event"}\n{"mes`);

/** More than any test sends before its answer. */
const ANNOUNCED = 100_000;

/**
 * The tunnel lines logged since `before`, up to the stderr barrier (whose own 403 line, the
 * last one, is checked and dropped).
 */
async function tunnelLinesSince(server: BuiltServer, before: number): Promise<string[]> {
  await server.stderrBarrier();
  const lines = server
    .output()
    .slice(before)
    .split('\n')
    .filter((line) => line.startsWith('[tunnel]'));
  expect(lines.at(-1)).toMatch(/^\[tunnel\] 403 no allowed DSN for o=0 p=\d+$/);
  return lines.slice(0, -1);
}

async function expectClosedByServer(client: SlowClient, ms: number, what: string): Promise<void> {
  await within(client.closed, ms, what);
  expect(client.closedByServer()).toBe(true);
}

describe('Sentry mode, SENTRY_TUNNEL_BODY_TIMEOUT_MS=600', () => {
  const BODY_TIMEOUT_MS = 600;
  let fake: FakeSentry;
  let server: BuiltServer;
  const clients: SlowClient[] = [];

  beforeAll(async () => {
    fake = await startFakeSentry();
    server = await startBuiltServer({
      SENTRY_DSN: fake.dsn('1'),
      SENTRY_TUNNEL_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    for (const client of clients) client.socket.destroy();
    await server?.stop();
    await fake?.close();
  });

  it('answers 408 to a trickling body, closes the socket, and Sentry gets nothing whole', async () => {
    fake.reset();
    const before = server.output().length;
    const client = await slowPost({
      origin: server.url,
      path: '/monitoring?o=0&p=1',
      contentLength: ANNOUNCED,
      start: envelopeStart(fake.dsn('1')),
    });
    clients.push(client);
    client.trickle(50);
    // The forward had begun: the header line reached Sentry before the deadline.
    await until('the fake Sentry to begin receiving', () => fake.started() >= 1);

    await expectClosedByServer(client, BODY_TIMEOUT_MS + 5_000, 'the 408 and the close');
    expect(client.status()).toBe(408);
    expect(client.received()).toMatch(/\r\nconnection: close\r\n/i);
    expect(client.received()).toMatch(/\r\n\r\n.*within 600 ms/);

    await until('the fake Sentry to see an incomplete body', () => fake.incomplete() >= 1);
    expect(fake.received).toHaveLength(0);
    expect(await tunnelLinesSince(server, before)).toEqual([
      expect.stringMatching(/^\[tunnel\] 408 /),
    ]);
  });

  it('closes a rejected request’s socket at the deadline when its body is still trickling', async () => {
    fake.reset();
    const before = server.output().length;
    const client = await slowPost({
      origin: server.url,
      path: '/monitoring?o=0&p=2',
      contentLength: ANNOUNCED,
      start: envelopeStart(fake.dsn('2')),
    });
    clients.push(client);
    client.trickle(50);
    await within(client.answered, 5_000, 'the 403');
    expect(client.status()).toBe(403);

    await expectClosedByServer(client, BODY_TIMEOUT_MS + 5_000, 'the close at the deadline');
    expect(fake.started()).toBe(0);
    // The 403 was the answer: no 408 after it.
    expect(await tunnelLinesSince(server, before)).toEqual([
      '[tunnel] 403 no allowed DSN for o=0 p=2',
    ]);
  });
});

describe('Sentry silent (SENTRY_TUNNEL_TIMEOUT_MS=500), body timeout a minute', () => {
  let fake: FakeSentry;
  let server: BuiltServer;
  const clients: SlowClient[] = [];

  beforeAll(async () => {
    fake = await startFakeSentry();
    server = await startBuiltServer({
      SENTRY_DSN: fake.dsn('1'),
      SENTRY_TUNNEL_TIMEOUT_MS: '500',
      SENTRY_TUNNEL_BODY_TIMEOUT_MS: '60000',
    });
  });
  afterAll(async () => {
    for (const client of clients) client.socket.destroy();
    await server?.stop();
    await fake?.close();
  });

  it('closes the socket right after the 504, while the client is still sending', async () => {
    fake.behave({ kind: 'hang' });
    const before = server.output().length;
    const client = await slowPost({
      origin: server.url,
      path: '/monitoring?o=0&p=1',
      contentLength: ANNOUNCED,
      start: envelopeStart(fake.dsn('1')),
    });
    clients.push(client);
    client.trickle(50);

    await within(client.answered, 5_000, 'the 504');
    expect(client.status()).toBe(504);
    expect(client.received()).toMatch(/\r\nconnection: close\r\n/i);
    // Far sooner than the body timeout (a minute) or Node's request timeout.
    await expectClosedByServer(client, 3_000, 'the close after the 504');

    await until('the fake Sentry to see an incomplete body', () => fake.incomplete() >= 1);
    expect(fake.received).toHaveLength(0);
    expect(await tunnelLinesSince(server, before)).toEqual([
      '[tunnel] 504 no answer from Sentry within 500 ms',
    ]);
  });

  it('closes the socket right after a 413 for a body still arriving', async () => {
    fake.reset();
    const client = await slowPost({
      origin: server.url,
      path: '/monitoring?o=0&p=1',
      contentLength: 2 * 1024 * 1024,
      start: envelopeStart(fake.dsn('1')),
    });
    clients.push(client);
    client.trickle(50);

    await within(client.answered, 5_000, 'the 413');
    expect(client.status()).toBe(413);
    expect(client.received()).toMatch(/\r\nconnection: close\r\n/i);
    await expectClosedByServer(client, 3_000, 'the close after the 413');
    expect(fake.started()).toBe(0);
  });
});

describe('local inbox mode: many slow clients at once', () => {
  const CLIENTS = 300;
  // Long enough that all of them are connected and trickling before the first deadline.
  const BODY_TIMEOUT_MS = 2_000;
  let server: BuiltServer;
  let inboxDir: string;
  const clients: SlowClient[] = [];

  beforeAll(async () => {
    inboxDir = join(mkdtempSync(join(tmpdir(), 'slow-inbox-')), 'inbox');
    server = await startBuiltServer({
      MONITORING_INBOX_DIR: inboxDir,
      SENTRY_TUNNEL_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    for (const client of clients) client.socket.destroy();
    await server?.stop();
  });

  it('keeps /health answering while they trickle, then 408s and closes every one', async () => {
    const before = server.output().length;
    clients.push(
      ...(await Promise.all(
        // From addresses of their own, each within its 8 uploads still arriving.
        Array.from({ length: CLIENTS }, (_, i) =>
          slowPost({
            origin: server.url,
            path: '/monitoring?o=0&p=1',
            contentLength: ANNOUNCED,
            start: envelopeStart(LOCAL_INBOX_DSN),
            localAddress: `127.0.10.${1 + (i % 50)}`,
          }),
        ),
      )),
    );
    for (const client of clients) client.trickle(200);

    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    // /health answered while every slow client was still waiting for its answer.
    expect(clients.filter((client) => client.status() !== undefined)).toHaveLength(0);

    await within(
      Promise.all(clients.map((client) => client.closed)),
      BODY_TIMEOUT_MS + 10_000,
      'every slow client closed',
    );
    expect(clients.map((client) => client.status())).toEqual(Array(CLIENTS).fill(408));
    expect(clients.filter((client) => !client.closedByServer())).toHaveLength(0);

    // One line each up to the log's budget for 408s; the rest are counted, not written.
    const lines = await tunnelLinesSince(server, before);
    expect(lines).toHaveLength(LINES_PER_KIND_PER_MINUTE);
    expect(lines.every((line) => line.startsWith('[tunnel] 408 '))).toBe(true);
    expect(readInbox(inboxDir)).toEqual({ issues: [], events: [], items: {} });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});
