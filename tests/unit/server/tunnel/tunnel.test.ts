/**
 * The framework-free tunnel on a bare node:http server (no build needed): each way a request
 * ends, as a table. The HTTP tests run the same cases against the built server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Dsn, isDsn, parseDsn } from '#app/monitoring/dsn';
import { LOCAL_INBOX_DSN } from '#app/monitoring/local-dsn';
import { busyError } from '#app/server/inbox/inbox-writer-protocol';
import { createAllowList } from '#app/server/tunnel/allow-list';
import { createByteBudget } from '#app/server/tunnel/byte-budget';
import { createTunnel } from '#app/server/tunnel/tunnel.server';
import { createUpstream, type Upstream } from '#app/server/tunnel/upstream.server';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { chunkedBody, send, textEnvelope } from '#tests/support/envelopes';
import { slowPost, within } from '#tests/support/slow-client';
import { until } from '#tests/support/wait-for';

const BODY_TIMEOUT_MS = 1000;

const dsn = (text: string): Dsn => {
  const parsed = parseDsn(text);
  if (!isDsn(parsed)) throw new Error(parsed.error);
  return parsed;
};

let fake: FakeSentry;
let server: Server;
let url: string;
let upstream: Upstream;
const logs: string[] = [];
const stored: Uint8Array[] = [];
// Room for two envelopes of the 4 KiB limit at once.
const localBuffer = createByteBudget(8192);

beforeAll(async () => {
  fake = await startFakeSentry();
  upstream = createUpstream();
  const tunnel = createTunnel({
    allowList: createAllowList([dsn(fake.dsn('1')), dsn(LOCAL_INBOX_DSN)], LOCAL_INBOX_DSN),
    maxBytes: 4096,
    // Longer than the body timeout, so that a trickling forward meets the body timeout first.
    timeoutMs: 2 * BODY_TIMEOUT_MS,
    bodyTimeoutMs: BODY_TIMEOUT_MS,
    upstream,
    storeLocally: async (envelope) => {
      stored.push(envelope);
    },
    localBuffer,
    log: (line) => logs.push(line),
    debug: false,
  });
  server = createServer((req, res) => void tunnel(req, res));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/monitoring`;
});
afterAll(async () => {
  upstream?.close();
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done));
  await fake?.close();
});
beforeEach(() => {
  fake.reset();
  logs.length = 0;
  stored.length = 0;
});

describe('createTunnel', () => {
  it.each<[string, string, string, () => Uint8Array | undefined, number, number]>([
    // name, method, query, body, status, envelopes that reach the fake ingest
    ['forwards an allowed envelope', 'POST', '?o=0&p=1', () => textEnvelope(fake.dsn('1')), 200, 1],
    ['405 for GET', 'GET', '?o=0&p=1', () => undefined, 405, 0],
    ['400 for a bad query', 'POST', '?o=a&p=1', () => textEnvelope(fake.dsn('1')), 400, 0],
    ['403 for an unknown target', 'POST', '?o=0&p=2', () => textEnvelope(fake.dsn('1')), 403, 0],
    [
      '403 for a foreign header DSN',
      'POST',
      '?o=0&p=1',
      () => textEnvelope('http://k@evil.example/1'),
      403,
      0,
    ],
    [
      // Bad percent-encoding once made DSN parsing throw inside a stream handler.
      '403 for a header DSN whose key is not valid percent-encoding',
      'POST',
      '?o=0&p=1',
      () => textEnvelope(fake.dsn('1', '%zz')),
      403,
      0,
    ],
    ['400 for an empty body', 'POST', '?o=0&p=1', () => new Uint8Array(), 400, 0],
    ['413 over the limit', 'POST', '?o=0&p=1', () => Buffer.alloc(5000, 0x61), 413, 0],
  ])('%s', async (_name, method, query, body, status, forwarded) => {
    const answer = await send(`${url}${query}`, { method, body: body() });
    expect(answer.status).toBe(status);
    if (forwarded) await fake.waitForRequests(forwarded);
    expect(fake.received).toHaveLength(forwarded);
    expect(logs).toHaveLength(status === 200 ? 0 : 1);
  });

  it('stores the local inbox DSN’s envelopes instead of forwarding them', async () => {
    const body = textEnvelope(LOCAL_INBOX_DSN, 'abc');
    const answer = await send(`${url}?o=0&p=1`, { body });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('{"id":"abc"}');
    expect(stored.map((envelope) => Buffer.from(envelope).equals(body))).toEqual([true]);
    expect(fake.started()).toBe(0);
  });

  it('413s a chunked local envelope over the limit and stores nothing', async () => {
    const body = chunkedBody([textEnvelope(LOCAL_INBOX_DSN), Buffer.alloc(5000, 0x61)]);
    const answer = await send(`${url}?o=0&p=1`, { body });
    expect(answer.status).toBe(413);
    expect(stored).toHaveLength(0);
  });

  it('holds local envelopes within one shared budget: 503 past it, room again once they end', async () => {
    // Two uploads of 3.5 KiB each fit the 8 KiB budget together; a third does not.
    const start = Buffer.concat([
      Buffer.from(`${JSON.stringify({ dsn: LOCAL_INBOX_DSN })}\n{"type":"event"}\n{`),
      Buffer.alloc(3500, 0x61),
    ]);
    const post = () =>
      slowPost({
        origin: new URL(url).origin,
        path: '/monitoring?o=0&p=1',
        contentLength: 4000,
        start,
      });
    const first = await post();
    const second = await post();
    await until(() => localBuffer.used() >= 2 * start.length);
    const third = await post();
    try {
      await within(third.closed, 3_000, 'the 503 and the close');
      expect(third.status()).toBe(503);
      expect(third.received()).toMatch(/\r\nretry-after: 5\r\n/i);
      expect(logs).toEqual(['[tunnel] 503 local inbox busy: too many envelopes arriving at once']);
    } finally {
      for (const client of [first, second, third]) client.socket.destroy();
    }
    // The budget is given back however an exchange ends (here: the clients left).
    await until(() => localBuffer.used() === 0);
    const answer = await send(`${url}?o=0&p=1`, { body: textEnvelope(LOCAL_INBOX_DSN, 'after') });
    expect(answer.status).toBe(200);
  });

  it('stops the forward when the client goes away mid-upload', async () => {
    const client = new AbortController();
    const body = chunkedBody(
      [textEnvelope(fake.dsn('1')), Buffer.alloc(100, 0x61)],
      async (index) => {
        if (index === 1) {
          await until(() => fake.started() >= 1);
          client.abort();
        }
      },
    );
    const sending = fetch(`${url}?o=0&p=1`, {
      method: 'POST',
      body,
      duplex: 'half',
      signal: client.signal,
    } as RequestInit);
    await expect(sending).rejects.toThrow();
    await until(() => fake.incomplete() >= 1);
    expect(fake.received).toHaveLength(0);
    await until(() => logs.length > 0);
    expect(logs).toEqual([
      '[tunnel] client closed the connection before the envelope was complete',
    ]);
  });

  it.each([
    ['forwarding', () => fake.dsn('1'), 1],
    ['storing locally', () => LOCAL_INBOX_DSN, 0],
  ])(
    'answers 408 and closes when the body is not whole in time (%s)',
    async (_name, dsnOf, started) => {
      const client = await slowPost({
        origin: new URL(url).origin,
        path: '/monitoring?o=0&p=1',
        contentLength: 4000,
        start: Buffer.from(`${JSON.stringify({ dsn: dsnOf() })}\n{"type":"event"}\n{`),
      });
      try {
        client.trickle(50);
        await within(client.closed, BODY_TIMEOUT_MS + 3_000, 'the 408 and the close');
        expect(client.status()).toBe(408);
        expect(client.closedByServer()).toBe(true);
        expect(client.received()).toMatch(/\r\nconnection: close\r\n/i);
        expect(logs).toEqual([`[tunnel] 408 envelope not complete within ${BODY_TIMEOUT_MS} ms`]);
        expect(fake.started()).toBe(started);
        await until(() => fake.incomplete() >= started);
        expect(fake.received).toHaveLength(0);
        expect(stored).toHaveLength(0);
      } finally {
        client.socket.destroy();
      }
    },
  );

  it.each([
    ['reset', 502],
    ['hang', 504],
  ] as const)('answers %s from Sentry with %i', async (kind, status) => {
    fake.behave({ kind });
    const answer = await send(`${url}?o=0&p=1`, { body: textEnvelope(fake.dsn('1')) });
    expect(answer.status).toBe(status);
    expect(logs).toEqual([expect.stringMatching(new RegExp(`^\\[tunnel\\] ${status} `))]);
  });
});

describe('createTunnel when the local inbox fails', () => {
  /** Posts one local-inbox envelope to a tunnel whose store is `storeLocally`. */
  async function postWithStore(storeLocally: () => Promise<void>) {
    const failures: string[] = [];
    const tunnel = createTunnel({
      allowList: createAllowList([dsn(LOCAL_INBOX_DSN)], LOCAL_INBOX_DSN),
      maxBytes: 4096,
      timeoutMs: 500,
      bodyTimeoutMs: BODY_TIMEOUT_MS,
      upstream,
      storeLocally,
      localBuffer: createByteBudget(1024 * 1024),
      log: (line) => failures.push(line),
      debug: false,
    });
    const local = createServer((req, res) => void tunnel(req, res));
    await new Promise<void>((done) => local.listen(0, '127.0.0.1', done));
    try {
      const port = (local.address() as AddressInfo).port;
      const answer = await send(`http://127.0.0.1:${port}/monitoring?o=0&p=1`, {
        body: textEnvelope(LOCAL_INBOX_DSN),
      });
      return { answer, failures };
    } finally {
      local.closeAllConnections();
      await new Promise((done) => local.close(done));
    }
  }

  it.each([
    ['rejects', async () => Promise.reject(new Error('EACCES: /secret/path/inbox'))],
    [
      'throws synchronously',
      () => {
        throw new Error('EACCES: /secret/path/inbox');
      },
    ],
  ])('answers 500 without the error text when the store %s', async (_name, storeLocally) => {
    const { answer, failures } = await postWithStore(storeLocally);
    expect(answer.status).toBe(500);
    expect(answer.text).toBe('local inbox failed');
    expect(failures).toEqual(['[tunnel] 500 local inbox failed: EACCES: /secret/path/inbox']);
  });

  it('answers 503 with Retry-After when the store has too many writes waiting', async () => {
    const { answer, failures } = await postWithStore(() => Promise.reject(busyError(256)));
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(failures).toEqual(['[tunnel] 503 local inbox busy: too many envelopes being written']);
  });
});
