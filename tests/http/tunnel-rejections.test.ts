/**
 * POST /monitoring rejects what it must not forward (400, 403, 405, 413), and nothing of a
 * rejected request reaches Sentry: after each rejection a control envelope is sent, and the
 * fake ingest must hold exactly that one.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { type Answer, chunkedBody, eventId, send, textEnvelope } from '#tests/support/envelopes';
import { until } from '#tests/support/wait-for';

const MAX_BYTES = 8192;

let fake: FakeSentry;
let server: BuiltServer;
let allowed: string;

beforeAll(async () => {
  fake = await startFakeSentry();
  allowed = fake.dsn('1');
  server = await startBuiltServer({
    SENTRY_DSN: allowed,
    SENTRY_TUNNEL_MAX_BYTES: String(MAX_BYTES),
  });
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});
beforeEach(() => fake.reset());

const at = (query: string) => `${server.url}/monitoring${query}`;
const line = (header: object) => `${JSON.stringify(header)}\n{"type":"event"}\n{}`;

/** Sends a good envelope and checks it is the only thing the fake ingest ever got. */
async function expectNothingElseForwarded(): Promise<void> {
  const id = eventId();
  const control = await send(at('?o=0&p=1'), { body: textEnvelope(allowed, id) });
  expect(control.status).toBe(200);
  const received = await fake.waitForRequests(1);
  expect(received).toHaveLength(1);
  expect(received[0]?.body.toString()).toContain(id);
}

function expectRejected(answer: Answer, status: number, reason: RegExp): void {
  expect(answer.status).toBe(status);
  expect(answer.text).toMatch(reason);
}

describe('400: the query is checked before the body', () => {
  it.each([
    ['', /"o"/],
    ['?o=0', /"p"/],
    ['?o=abc&p=1', /"o"/],
    ['?o=0&p=1.5', /"p"/],
    [`?o=0&p=${'1'.repeat(21)}`, /"p"/],
    ['?o=0&p=1&r=USA', /"r"/],
  ])('query %j', async (query, reason) => {
    expectRejected(await send(at(query), { body: textEnvelope(allowed) }), 400, reason);
    await expectNothingElseForwarded();
  });
});

describe('400: malformed envelopes', () => {
  it.each([
    ['empty', Buffer.alloc(0), /empty/],
    ['header not JSON', Buffer.from('hello\n{}'), /not JSON/],
    ['header without dsn', Buffer.from(line({ event_id: 'abc' })), /no dsn/],
    ['header is an array', Buffer.from('[1]\n{}'), /not a JSON object/],
  ])('%s', async (_name, body, reason) => {
    expectRejected(await send(at('?o=0&p=1'), { body }), 400, reason);
    await expectNothingElseForwarded();
  });
});

describe('400: a header with more than one dsn', () => {
  it('is rejected even when the last dsn is the allowed one', async () => {
    // JSON.parse would judge by the last dsn; Sentry may read the first.
    const body = Buffer.from(
      `{"dsn":"http://publickey@evil.example/1","dsn":"${allowed}"}\n{"type":"event"}\n{}`,
    );
    expectRejected(await send(at('?o=0&p=1'), { body }), 400, /more than one dsn/);
    await expectNothingElseForwarded();
  });
});

describe('403: never an open relay', () => {
  it.each<[string, string, (dsn: string) => string]>([
    ['the query names no allowed DSN', '?o=0&p=2', (dsn) => dsn],
    ['the query names another organisation', '?o=5&p=1', (dsn) => dsn],
    ['a region the allowed DSN has not', '?o=0&p=1&r=us', (dsn) => dsn],
    ['the header DSN has another key', '?o=0&p=1', (dsn) => dsn.replace('publickey', 'otherkey')],
    ['the header DSN has another host', '?o=0&p=1', () => 'http://publickey@evil.example/1'],
    ['the header DSN has another port', '?o=0&p=1', (dsn) => dsn.replace(/:\d+\//, ':1/')],
    ['the header DSN has another scheme', '?o=0&p=1', (dsn) => dsn.replace('http:', 'https:')],
    ['the header DSN has another project', '?o=0&p=1', (dsn) => dsn.replace(/\/1$/, '/3')],
    ['the header DSN is not a DSN', '?o=0&p=1', () => 'not a dsn'],
    // Bad percent-encoding once made DSN parsing throw inside a stream handler.
    [
      'the header DSN key is not valid percent-encoding',
      '?o=0&p=1',
      (dsn) => dsn.replace('publickey', '%zz'),
    ],
  ])('%s', async (_name, query, headerDsn) => {
    const body = Buffer.from(line({ dsn: headerDsn(allowed) }));
    expectRejected(await send(at(query), { body }), 403, /DSN/);
    await expectNothingElseForwarded();
  });
});

describe('405: only POST', () => {
  it.each(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])('%s', async (method) => {
    const body = method === 'GET' ? undefined : textEnvelope(allowed);
    const answer = await send(at('?o=0&p=1'), { method, body });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    await expectNothingElseForwarded();
  });
});

describe('413: over SENTRY_TUNNEL_MAX_BYTES', () => {
  const big = () => Buffer.concat([textEnvelope(allowed), Buffer.alloc(MAX_BYTES, 0x61)]);

  it('rejects up front from Content-Length', async () => {
    expectRejected(await send(at('?o=0&p=1'), { body: big() }), 413, /over 8192/);
    await expectNothingElseForwarded();
  });

  it('rejects a chunked body before its header line ends', async () => {
    const body = chunkedBody([Buffer.alloc(MAX_BYTES / 2, 0x20), Buffer.alloc(MAX_BYTES, 0x20)]);
    expectRejected(await send(at('?o=0&p=1'), { body }), 413, /over 8192/);
    await expectNothingElseForwarded();
  });

  it('aborts the forward when a chunked body crosses the limit mid-stream', async () => {
    const head = textEnvelope(allowed);
    // The second chunk goes out only once the forward to Sentry has begun.
    const body = chunkedBody([head, Buffer.alloc(MAX_BYTES, 0x62)], async (index) => {
      if (index === 1)
        await until(
          'the fake Sentry to begin receiving the first envelope',
          () => fake.started() >= 1,
        );
    });
    expectRejected(await send(at('?o=0&p=1'), { body }), 413, /while streaming/);
    // Sentry saw the request begin and break off, never a complete envelope.
    await until('the fake Sentry to see an incomplete body', () => fake.incomplete() >= 1);
    await expectNothingElseForwarded();
  });

  it('answers 413 (not a reset) to a client still sending a large body', async () => {
    const answer = await send(at('?o=0&p=1'), {
      body: Buffer.concat([textEnvelope(allowed), Buffer.alloc(2 * 1024 * 1024, 0x61)]),
    });
    expect(answer.status).toBe(413);
    await expectNothingElseForwarded();
  });
});

describe('logs', () => {
  it('writes one line per rejection with status and reason, never the envelope', async () => {
    const secret = `secret-${eventId()}`;
    const mark = server.output().length;
    await send(at('?o=0&p=9'), { body: textEnvelope(allowed, eventId(), secret) });
    expect(await server.printedSince(mark)).toBe('[tunnel] 403 no allowed DSN for o=0 p=9\n');
    expect(server.output()).not.toContain(secret);
  });

  it('writes nothing for a successful forward', async () => {
    const mark = server.output().length;
    await expectNothingElseForwarded();
    expect(await server.printedSince(mark)).toBe('');
  });
});
