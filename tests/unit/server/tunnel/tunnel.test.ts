import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Dsn, isDsn, parseDsn } from '#app/monitoring/dsn';
import { LOCAL_INBOX_DSN } from '#app/monitoring/filters';
import { IngestError } from '#app/server/inbox/store/ingest-protocol';
import { createAllowList } from '#app/server/tunnel/allow-list';
import {
  CLIENT_RATE_LIMITS,
  createByteBudget,
  createClientRate,
  createClientSlots,
} from '#app/server/tunnel/client-limits';
import { createUpstream, type Upstream } from '#app/server/tunnel/forward-to-sentry.server';
import {
  createTunnel,
  errorMessageOf,
  internalErrorLine,
  noAllowedDsnReason,
  tunnelLogKind,
  tunnelLogLine,
} from '#app/server/tunnel/tunnel.server';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { chunkedBody, send, textEnvelope } from '#tests/support/envelopes';
import { slowPost, within } from '#tests/support/slow-client';
import { until } from '#tests/support/wait-for';

/**
 * The framework-free tunnel on a bare node:http server (no build needed): each way a request
 * ends, as a table. The HTTP tests run the same cases against the built server.
 */
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
/** What went to the rate-limited log, as `kind: line`. */
const limited: string[] = [];
const stored: Uint8Array[] = [];
// Room for two envelopes of the 4 KiB limit at once, from two clients, and for small ones
// beside them (at most 1 KiB each, 4 KiB together).
const localBuffer = createByteBudget({
  total: 12 * 1024,
  perClient: 8 * 1024,
  reserve: 4 * 1024,
  smallEnvelope: 1024,
});
const streamingForwards = createClientSlots(2);
// Wide enough that no test here meets it but the one about the rate (its own tunnel).
const localRate = createClientRate(CLIENT_RATE_LIMITS, Date.now);

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
      return {};
    },
    localBuffer,
    localRate,
    streamingForwards,
    log: (line) => logs.push(line),
    logLimited: (kind, line) => limited.push(`${kind}: ${line}`),
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
  limited.length = 0;
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

  /** An envelope announcing 4,000 bytes from `localAddress`, of which 3,000 arrive, then nothing. */
  const stalledPost = (localAddress: string, dsnText = LOCAL_INBOX_DSN) => {
    const head = Buffer.from(`${JSON.stringify({ dsn: dsnText })}\n{"type":"event"}\n{`);
    return slowPost({
      origin: new URL(url).origin,
      path: '/monitoring?o=0&p=1',
      contentLength: 4000,
      start: Buffer.concat([head, Buffer.alloc(3000 - head.length, 0x61)]),
      localAddress,
    });
  };

  it('holds local envelopes within one shared budget: 503 past it, small ones still fit, room again once they end', async () => {
    // Two stalled uploads from two clients hold 6,000 of the 8 KiB that large envelopes may
    // hold; a third, from a third client, does not fit.
    const first = await stalledPost('127.0.0.2');
    const second = await stalledPost('127.0.0.3');
    await until(() => localBuffer.used() === 6000);
    const third = await stalledPost('127.0.0.4');
    try {
      await within(third.closed, 3_000, 'the 503 and the close');
      expect(third.status()).toBe(503);
      expect(third.received()).toMatch(/\r\nretry-after: 5\r\n/i);
      expect(logs).toEqual(['[tunnel] 503 local inbox busy: too many envelopes arriving at once']);
      // The reserve: a small report still fits beside them.
      const small = await send(`${url}?o=0&p=1`, { body: textEnvelope(LOCAL_INBOX_DSN, 'small') });
      expect(small.status).toBe(200);
    } finally {
      for (const client of [first, second, third]) client.socket.destroy();
    }
    // The budget is given back however an exchange ends (here: the clients left).
    await until(() => localBuffer.used() === 0);
    const answer = await send(`${url}?o=0&p=1`, { body: textEnvelope(LOCAL_INBOX_DSN, 'after') });
    expect(answer.status).toBe(200);
  });

  it('answers 429 with Retry-After and X-Sentry-Rate-Limits to a client past its share of the local budget, and not to others', async () => {
    const held = [await stalledPost('127.0.0.2'), await stalledPost('127.0.0.2')];
    await until(() => localBuffer.usedBy('127.0.0.2') === 6000);
    const hog = await stalledPost('127.0.0.2');
    try {
      await within(hog.closed, 3_000, 'the 429 and the close');
      expect(hog.status()).toBe(429);
      expect(hog.received()).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(hog.received()).toMatch(/\r\nx-sentry-rate-limits: 1::organization:client_share\r\n/i);
      expect(hog.closedByServer()).toBe(true);
      // Another client is not held to that share.
      const other = await send(`${url}?o=0&p=1`, { body: textEnvelope(LOCAL_INBOX_DSN, 'other') });
      expect(other.status).toBe(200);
      expect(limited).toEqual([
        "tunnel 429: [tunnel] 429 client 127.0.0.2 holds its share of the local inbox's receive buffer (8192 bytes)",
      ]);
      expect(logs).toEqual([]);
    } finally {
      for (const client of [...held, hog]) client.socket.destroy();
    }
    await until(() => localBuffer.used() === 0);
  });

  it('lets a client stream at most its share of envelopes to Sentry at once (429), and others on', async () => {
    const held = [
      await stalledPost('127.0.0.2', fake.dsn('1')),
      await stalledPost('127.0.0.2', fake.dsn('1')),
    ];
    await until(() => fake.started() === 2);
    const hog = await stalledPost('127.0.0.2', fake.dsn('1'));
    try {
      await within(hog.closed, 3_000, 'the 429 and the close');
      expect(hog.status()).toBe(429);
      expect(hog.received()).toMatch(/\r\nx-sentry-rate-limits: 1::organization:client_share\r\n/i);
      expect(fake.started()).toBe(2);
      // A whole envelope from another client goes straight on.
      const other = await send(`${url}?o=0&p=1`, { body: textEnvelope(fake.dsn('1')) });
      expect(other.status).toBe(200);
      expect(limited).toEqual([
        'tunnel 429: [tunnel] 429 client 127.0.0.2 has 2 envelopes streaming to Sentry already',
      ]);
    } finally {
      for (const client of [...held, hog]) client.socket.destroy();
    }
    // Each slot is given back once its exchange ends.
    await until(() => streamingForwards.heldBy('127.0.0.2') === 0);
  });

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
  async function postWithStore(storeLocally: () => Promise<{ eventId?: string }>) {
    const failures: string[] = [];
    const tunnel = createTunnel({
      allowList: createAllowList([dsn(LOCAL_INBOX_DSN)], LOCAL_INBOX_DSN),
      maxBytes: 4096,
      timeoutMs: 500,
      bodyTimeoutMs: BODY_TIMEOUT_MS,
      upstream,
      storeLocally,
      localBuffer: createByteBudget({
        total: 1024 * 1024,
        perClient: 1024 * 1024,
        reserve: 0,
        smallEnvelope: 0,
      }),
      localRate: createClientRate(CLIENT_RATE_LIMITS, Date.now),
      streamingForwards: createClientSlots(2),
      log: (line) => failures.push(line),
      logLimited: (_kind, line) => failures.push(line),
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
    const { answer, failures } = await postWithStore(() =>
      Promise.reject(new IngestError('busy', 'the local inbox has 1024 envelopes waiting already')),
    );
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(failures).toEqual(['[tunnel] 503 local inbox busy: too many envelopes being written']);
  });

  it('answers 400 with the store’s reason for an envelope Relay would refuse, and 200 with the stored id', async () => {
    const refused = await postWithStore(() =>
      Promise.reject(new IngestError('rejected', 'invalid item header: missing type')),
    );
    expect(refused.answer.status).toBe(400);
    expect(refused.answer.text).toBe('invalid item header: missing type');
    expect(refused.failures).toEqual(['[tunnel] 400 invalid item header: missing type']);
    const stored = await postWithStore(async () => ({ eventId: 'f'.repeat(32) }));
    expect(stored.answer.status).toBe(200);
    expect(JSON.parse(stored.answer.text)).toEqual({ id: 'f'.repeat(32) });
  });
});

describe('createTunnel: each client’s rate into the local inbox', () => {
  it('answers 429 with Retry-After and X-Sentry-Rate-Limits past the rate, storing nothing more', async () => {
    const kept: Uint8Array[] = [];
    const tunnel = createTunnel({
      allowList: createAllowList([dsn(LOCAL_INBOX_DSN)], LOCAL_INBOX_DSN),
      maxBytes: 4096,
      timeoutMs: 500,
      bodyTimeoutMs: BODY_TIMEOUT_MS,
      upstream,
      storeLocally: async (envelope) => {
        kept.push(envelope);
        return {};
      },
      localBuffer: createByteBudget({
        total: 1 << 20,
        perClient: 1 << 20,
        reserve: 0,
        smallEnvelope: 0,
      }),
      localRate: createClientRate(
        {
          envelopesPerSecond: 0.001,
          envelopeBurst: 2,
          bytesPerSecond: 1e9,
          byteBurst: 1e9,
          maxClients: 10,
        },
        () => 0,
      ),
      streamingForwards: createClientSlots(2),
      log: () => undefined,
      logLimited: () => undefined,
      debug: false,
    });
    const local = createServer((req, res) => void tunnel(req, res));
    await new Promise<void>((done) => local.listen(0, '127.0.0.1', done));
    try {
      const port = (local.address() as AddressInfo).port;
      const post = () =>
        send(`http://127.0.0.1:${port}/monitoring?o=0&p=1`, {
          body: textEnvelope(LOCAL_INBOX_DSN),
        });
      expect((await post()).status).toBe(200);
      expect((await post()).status).toBe(200);
      const third = await post();
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('1000');
      expect(third.headers.get('x-sentry-rate-limits')).toBe('1000::organization:client_rate');
      expect(kept).toHaveLength(2);
    } finally {
      local.closeAllConnections();
      await new Promise((done) => local.close(done));
    }
  });
});

describe('tunnel messages', () => {
  it.each([
    [400, 'empty envelope', '[tunnel] 400 empty envelope'],
    [503, 'local inbox busy', '[tunnel] 503 local inbox busy'],
  ])('logs %i %s as one line', (status, reason, line) => {
    expect(tunnelLogLine(status, reason)).toBe(line);
  });

  it.each([
    ['[tunnel] 400 empty envelope', 'tunnel 400'],
    ['[tunnel] 403 no allowed DSN for o=0 p=1', 'tunnel 403'],
    ['[tunnel] 500 internal error: 403 things', 'tunnel 500'],
    ['[tunnel] client closed the connection before the envelope was complete', 'tunnel'],
    ['[tunnel] 4033 odd', 'tunnel'],
  ])('rate-limits %j as the kind %j', (line, kind) => {
    expect(tunnelLogKind(line)).toBe(kind);
  });

  it.each([
    [new Error('EACCES: /srv/inbox'), 'EACCES: /srv/inbox'],
    ['a thrown string', 'a thrown string'],
    [undefined, 'undefined'],
    [Symbol('odd'), 'Symbol(odd)'],
  ])('gives the message of %s', (thrown, message) => {
    expect(errorMessageOf(thrown)).toBe(message);
  });

  it('logs a caught bug as a 500 with its message', () => {
    expect(internalErrorLine(new TypeError('x is undefined'))).toBe(
      '[tunnel] 500 internal error: x is undefined',
    );
  });

  it.each([
    [{ o: '1', p: '2' }, 'no allowed DSN for o=1 p=2'],
    [{ o: '1', p: '2', r: 'us' }, 'no allowed DSN for o=1 p=2 r=us'],
  ])('names the target of a 403: %o', (target, reason) => {
    expect(noAllowedDsnReason(target)).toBe(reason);
  });
});
