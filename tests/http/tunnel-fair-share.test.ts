/**
 * The tunnel's capacity for slow uploads shared fairly, against the built server. Clients are
 * loopback addresses of their own (127.0.x.y, each one client). In local inbox mode, uploads of
 * 1 MiB that stall held the whole 64 MiB receive buffer, and 104 of 111 real reports got 503,
 * which the browser SDK does not retry. In Sentry mode, each slow body held a connection to
 * Sentry of its own (900 slow bodies: 900 sockets, then EMFILE).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { send, textEnvelope } from '#tests/support/envelopes';
import { type SlowClient, slowPost, within } from '#tests/support/slow-client';
import { until } from '#tests/support/wait-for';

const MiB = 1024 * 1024;
// Long enough that nothing stalled here meets its deadline while the test runs.
const BODY_TIMEOUT_S = 30;

let clients: SlowClient[] = [];
afterEach(() => {
  for (const client of clients) client.socket.destroy();
  clients = [];
});

/** An envelope for `dsn` announcing `contentLength` bytes, of which `sent` arrive, then nothing. */
async function stalled(
  origin: string,
  localAddress: string,
  dsn: string,
  contentLength: number,
  sent: number,
): Promise<SlowClient> {
  const head = Buffer.from(`${JSON.stringify({ dsn })}\n{"type":"attachment"}\n`);
  const client = await slowPost({
    origin,
    path: '/monitoring?o=0&p=1',
    contentLength,
    start: Buffer.concat([head, Buffer.alloc(sent - head.length, 0x61)]),
    localAddress,
  });
  clients.push(client);
  return client;
}

/** `count` real reports from 127.0.0.1, one after the other: their statuses. */
async function realReports(origin: string, dsn: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const answer = await send(`${origin}/monitoring?o=0&p=1`, { body: textEnvelope(dsn) });
    statuses.push(answer.status);
  }
  return statuses;
}

describe('local inbox mode: the 64 MiB receive buffer', () => {
  let server: BuiltServer;
  beforeAll(async () => {
    server = await startBuiltServer({
      SENTRY_TUNNEL_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_S * 1000),
    });
  });
  afterAll(() => server?.stop());

  it('holds a client to its share (429, Retry-After) while other clients’ reports are stored, also when large uploads fill the rest', async () => {
    const upload = (address: string) => stalled(server.url, address, LOCAL_INBOX_DSN, MiB, MiB - 1);
    // One client, 70 uploads of 1 MiB that stop a byte short: it may hold 2 MiB of them, so
    // at most two are still waiting for their last byte; the others got 429 and were closed.
    // Sent in waves that keep it within its 8 uploads still arriving, so that what refuses
    // them is always its share of the buffer: 70 at once met the count first on a busy machine
    // (a 429 too, but another reason, and the log's 20 lines went to it).
    const hog: SlowClient[] = [];
    const waiting = () => hog.filter((client) => client.status() === undefined).length;
    while (hog.length < 70) {
      const wave = Math.min(8 - waiting(), 70 - hog.length);
      hog.push(...(await Promise.all(Array.from({ length: wave }, () => upload('127.0.0.2')))));
      await until('all but 2 of the uploads to be answered', () => waiting() <= 2, {
        timeoutMs: 15_000,
      });
    }
    await until(
      'every upload but 2 to be answered before its close',
      () =>
        waiting() <= 2 &&
        hog.every((client) => client.status() !== undefined || !client.closedByServer()),
      { timeoutMs: 15_000 },
    );
    expect(hog.filter((client) => client.status() === 429)).toHaveLength(70 - waiting());
    const refused = hog.find((client) => client.status() === 429) as SlowClient;
    expect(refused.received()).toMatch(/\r\nretry-after: 30\r\n/i);
    expect(refused.received()).toMatch(
      /\r\nx-sentry-rate-limits: 30::organization:client_share\r\n/i,
    );
    await within(refused.closed, 3_000, 'the close after the 429');
    expect(refused.closedByServer()).toBe(true);
    expect(await realReports(server.url, LOCAL_INBOX_DSN, 20)).toEqual(Array(20).fill(200));

    // 30 more clients with two such uploads each fill what large envelopes may hold (56 MiB):
    // the last get 503, and small reports still fit in the 8 MiB kept for them.
    const many = await Promise.all(
      Array.from({ length: 60 }, (_, i) => upload(`127.0.3.${Math.floor(i / 2) + 1}`)),
    );
    await until(
      'a 503 for one of the 60 uploads',
      () => many.some((client) => client.status() === 503),
      { timeoutMs: 15_000 },
    );
    expect(many.filter((client) => client.status() === 429)).toHaveLength(0);
    const busy = many.find((client) => client.status() === 503) as SlowClient;
    expect(busy.received()).toMatch(/\r\nretry-after: 5\r\n/i);
    expect(await realReports(server.url, LOCAL_INBOX_DSN, 20)).toEqual(Array(20).fill(200));

    const printed = await server.printedSince(0);
    expect(printed).toContain(
      "[tunnel] 429 client 127.0.0.2 holds its share of the local inbox's receive buffer (2097152 bytes)",
    );
    expect(printed).toContain('[tunnel] 503 local inbox busy: too many envelopes arriving at once');
    // 68 refusals or more, at most the rate-limited log's 20 lines.
    expect(printed.match(/\[tunnel\] 429 /g)?.length).toBe(20);

    // The buffer is given back however an exchange ends (here: the clients left): 50 such
    // uploads from 25 new clients fit again, once the server has seen the others go. Had it
    // kept what they held, each try would see 503s within milliseconds. A report sent after
    // each try is the marker: once it is stored, the server (one process) has read the
    // uploads' headers, sent before it, and answered any it refused.
    for (const client of [...hog, ...many]) client.socket.destroy();
    let refusedAgain = -1;
    await until(
      () => `50 large uploads to fit again (${refusedAgain} refused at the last try)`,
      async () => {
        const again = await Promise.all(
          Array.from({ length: 50 }, (_, i) => upload(`127.0.5.${Math.floor(i / 2) + 1}`)),
        );
        expect(await realReports(server.url, LOCAL_INBOX_DSN, 1)).toEqual([200]);
        refusedAgain = again.filter((client) => client.status() !== undefined).length;
        for (const client of again) client.socket.destroy();
        return refusedAgain === 0;
      },
      { timeoutMs: 15_000 },
    );
  }, 60_000);
});

describe('local inbox mode: uploads still arriving', () => {
  let server: BuiltServer;
  beforeAll(async () => {
    server = await startBuiltServer({
      SENTRY_TUNNEL_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_S * 1000),
    });
  });
  afterAll(() => server?.stop());

  it('holds a client to 8 small uploads still arriving (429 for the 9th), while another client’s reports are stored', async () => {
    const trickle = () => stalled(server.url, '127.0.9.1', LOCAL_INBOX_DSN, 1000, 200);
    const held: SlowClient[] = [];
    for (let i = 0; i < 8; i++) held.push(await trickle());
    const ninth = await trickle();
    await until('an answer to the 9th upload', () => ninth.status() !== undefined, {
      timeoutMs: 10_000,
    });
    expect(ninth.status()).toBe(429);
    expect(held.filter((client) => client.status() !== undefined)).toEqual([]);
    expect(await realReports(server.url, LOCAL_INBOX_DSN, 5)).toEqual(Array(5).fill(200));
  });
});

describe('Sentry mode: connections to Sentry', () => {
  let fake: FakeSentry;
  let server: BuiltServer;
  beforeAll(async () => {
    fake = await startFakeSentry();
    server = await startBuiltServer({
      SENTRY_DSN: fake.dsn('1'),
      SENTRY_TUNNEL_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_S * 1000),
      SENTRY_TUNNEL_TIMEOUT_MS: String(BODY_TIMEOUT_S * 1000),
    });
  });
  afterAll(async () => {
    await server?.stop();
    await fake?.close();
  });

  it('streams slow bodies on a bounded pool, keeps whole envelopes apart, and holds a client to 8 of them (429)', async () => {
    const slow = (address: string) => stalled(server.url, address, fake.dsn('1'), 4000, 1000);
    // 200 slow bodies from 100 clients, two each: at most 64 connections to Sentry.
    await Promise.all(Array.from({ length: 200 }, (_, i) => slow(`127.0.4.${(i % 100) + 1}`)));
    await until('the fake Sentry to begin receiving 64 slow bodies', () => fake.started() >= 64, {
      timeoutMs: 15_000,
    });
    // A whole envelope does not wait behind them. Forwarded after the slow bodies' headers were
    // read (one process), the reports are the marker: a connection opened for any slow body
    // past the 64 would have reached Sentry before them.
    expect(await realReports(server.url, fake.dsn('1'), 5)).toEqual(Array(5).fill(200));
    expect(fake.connections()).toBeLessThanOrEqual(64 + 1);
    // One client with ten slow bodies: eight are forwarded (or wait their turn), two refused.
    const hog = await Promise.all(Array.from({ length: 10 }, () => slow('127.0.0.2')));
    await until(
      'two 429s for the client with ten slow bodies',
      () => hog.filter((client) => client.status() === 429).length === 2,
      { timeoutMs: 10_000 },
    );
    const refused = hog.find((client) => client.status() === 429) as SlowClient;
    expect(refused.received()).toMatch(/\r\nretry-after: 30\r\n/i);
    // The marker again: one more report forwarded, and none of the hog's bodies begun before it.
    expect(await realReports(server.url, fake.dsn('1'), 1)).toEqual([200]);
    expect(fake.connections()).toBeLessThanOrEqual(64 + 1);
    expect(fake.started()).toBe(64 + 5 + 1);
    expect(await server.printedSince(0)).toContain(
      '[tunnel] 429 client 127.0.0.2 has 8 envelopes arriving already',
    );
  }, 60_000);
});
