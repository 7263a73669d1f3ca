/** POST /monitoring forwards allowed envelopes to Sentry byte for byte and passes Sentry's answer back. */
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { binaryEnvelope, chunkedBody, eventId, send, textEnvelope } from '#tests/support/envelopes';
import { rawRequest } from '#tests/support/raw-request';
import { until } from '#tests/support/wait-for';

let fake: FakeSentry;
let server: BuiltServer;
let tunnel: string;

beforeAll(async () => {
  fake = await startFakeSentry();
  server = await startBuiltServer({
    SENTRY_DSN: fake.dsn('1'),
    SENTRY_TUNNEL_ALLOWED_DSNS: fake.dsn('2', 'otherkey'),
  });
  tunnel = `${server.url}/monitoring?o=0&p=1`;
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});
beforeEach(() => fake.reset());

describe('forwarding', () => {
  it('forwards a text envelope byte for byte to the DSN’s envelope endpoint', async () => {
    const id = eventId();
    const body = textEnvelope(fake.dsn('1'), id);
    const answer = await send(tunnel, {
      body,
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });

    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ id });
    expect(answer.headers.get('content-type')).toBe('application/json');
    const [received] = await fake.waitForRequests(1);
    expect(received?.method).toBe('POST');
    expect(received?.url).toBe('/api/1/envelope/');
    expect(received?.body.equals(body)).toBe(true);
    expect(received?.headers['x-sentry-forwarded-for']).toBe('127.0.0.1');
    expect(received?.headers['content-type']).toBe('text/plain;charset=UTF-8');
  });

  it('sends the Host of the DSN and the client headers Sentry uses, and no others', async () => {
    const body = textEnvelope(fake.dsn('1'));
    const answer = await send(tunnel, {
      body,
      headers: {
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130',
        origin: 'https://app.example',
        referer: 'https://app.example/checkout',
        cookie: 'session=secret',
        authorization: 'Bearer secret',
      },
    });

    expect(answer.status).toBe(200);
    const [received] = await fake.waitForRequests(1);
    expect(received?.headers.host).toBe(new URL(fake.dsn('1')).host);
    expect(received?.headers['user-agent']).toBe('Mozilla/5.0 (X11; Linux x86_64) Chrome/130');
    expect(received?.headers.origin).toBe('https://app.example');
    expect(received?.headers.referer).toBe('https://app.example/checkout');
    expect(received?.headers['content-length']).toBe(String(body.length));
    expect(received?.headers.cookie).toBeUndefined();
    expect(received?.headers.authorization).toBeUndefined();
  });

  it.each([
    ['with Content-Length', false],
    ['chunked, without Content-Length', true],
  ])('forwards a binary envelope byte for byte (%s)', async (_name, chunked) => {
    const body = binaryEnvelope(fake.dsn('1'), 200_000);
    const answer = await send(tunnel, {
      body: chunked
        ? chunkedBody([body.subarray(0, 10), body.subarray(10, 70_000), body.subarray(70_000)])
        : body,
    });

    expect(answer.status).toBe(200);
    const [received] = await fake.waitForRequests(1);
    expect(received?.body.length).toBe(body.length);
    expect(received?.body.equals(body)).toBe(true);
  });

  it('streams: Sentry gets the envelope before the client has finished sending it', async () => {
    const body = binaryEnvelope(fake.dsn('1'), 300_000);
    const parts = [body.subarray(0, 1_000), body.subarray(1_000, 150_000), body.subarray(150_000)];
    // The rest goes out only once the request to Sentry has begun: a tunnel that waited for
    // the whole body would never begin, and this request would time out.
    const answer = await send(tunnel, {
      body: chunkedBody(parts, async (index) => {
        if (index === 1)
          await until(
            'the fake Sentry to begin receiving the first envelope',
            () => fake.started() >= 1,
          );
      }),
    });

    expect(answer.status).toBe(200);
    const [received] = await fake.waitForRequests(1);
    expect(received?.body.equals(body)).toBe(true);
  });

  it('keeps its connections to Sentry alive between envelopes', async () => {
    const before = fake.connections();
    for (let i = 0; i < 10; i++) {
      const answer = await send(tunnel, { body: textEnvelope(fake.dsn('1')) });
      expect(answer.status).toBe(200);
    }
    await fake.waitForRequests(10);
    // One new connection at most (none when an earlier test left one open), not one each.
    expect(fake.connections() - before).toBeLessThanOrEqual(1);
  });

  it('forwards for a DSN from SENTRY_TUNNEL_ALLOWED_DSNS to that DSN’s own project', async () => {
    const body = textEnvelope(fake.dsn('2', 'otherkey'));
    const answer = await send(`${server.url}/monitoring?o=0&p=2`, { body });

    expect(answer.status).toBe(200);
    const [received] = await fake.waitForRequests(1);
    expect(received?.url).toBe('/api/2/envelope/');
    expect(received?.body.equals(body)).toBe(true);
  });
});

describe('debug logging', () => {
  it('logs each forward only when DEBUG names tunnel', async () => {
    const debugging = await startBuiltServer({ SENTRY_DSN: fake.dsn('1'), DEBUG: 'tunnel' });
    try {
      const body = textEnvelope(fake.dsn('1'));
      const answer = await send(`${debugging.url}/monitoring?o=0&p=1`, { body });
      expect(answer.status).toBe(200);
      await debugging.waitForOutput(new RegExp(`\\[tunnel\\] 200 forwarded ${body.length} bytes`));
    } finally {
      await debugging.stop();
    }
    // The server of this file (no DEBUG) forwarded many envelopes and logged none of them.
    expect(server.output()).not.toContain('[tunnel]');
  });
});

describe('Sentry’s answer comes back', () => {
  it('passes a 429 through with Retry-After and X-Sentry-Rate-Limits', async () => {
    fake.behave({
      kind: 'status',
      status: 429,
      headers: {
        'retry-after': '60',
        'x-sentry-rate-limits': '60:error:organization',
        'content-type': 'application/json',
      },
      body: '{"detail":"rate limited"}',
    });
    const answer = await send(tunnel, { body: textEnvelope(fake.dsn('1')) });

    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('60');
    expect(answer.headers.get('x-sentry-rate-limits')).toBe('60:error:organization');
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.text).toBe('{"detail":"rate limited"}');
  });

  it('passes X-Sentry-Rate-Limits through on a 200 (the SDK reads it there too)', async () => {
    fake.behave({
      kind: 'status',
      status: 200,
      headers: {
        'x-sentry-rate-limits': '3600:replay:project',
        'content-type': 'application/json',
      },
      body: '{}',
    });
    const answer = await send(tunnel, { body: textEnvelope(fake.dsn('1')) });

    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-sentry-rate-limits')).toBe('3600:replay:project');
  });

  it.each([400, 403, 413, 500, 503])('passes Sentry’s %i through', async (status) => {
    fake.behave({ kind: 'status', status, headers: { 'content-type': 'text/plain' }, body: 'no' });
    const answer = await send(tunnel, { body: textEnvelope(fake.dsn('1')) });

    expect(answer.status).toBe(status);
    expect(answer.text).toBe('no');
  });
});

describe('X-Sentry-Forwarded-For behind a trusted proxy', () => {
  let behind: BuiltServer;
  beforeAll(async () => {
    // 127.0.0.2 plays the proxy; 127.0.0.1 is anyone else on the machine.
    behind = await startBuiltServer({ SENTRY_DSN: fake.dsn('1'), TRUSTED_PROXIES: '127.0.0.2' });
  });
  afterAll(async () => {
    await behind?.stop();
  });

  const postVia = (localAddress: string, forwardedFor: string) => {
    const { port } = new URL(behind.url);
    return rawRequest(`${behind.url}/monitoring?o=0&p=1`, {
      method: 'POST',
      headers: { 'x-forwarded-for': forwardedFor },
      body: textEnvelope(fake.dsn('1')),
      connect: () => connect({ host: '127.0.0.1', port: Number(port), localAddress }),
    });
  };

  it.each([
    ['the visitor the proxy names', '127.0.0.2', '198.51.100.1, 203.0.113.7', '203.0.113.7'],
    ['the peer, when it is no trusted proxy', '127.0.0.1', '203.0.113.7', '127.0.0.1'],
  ])('is %s', async (_name, from, header, expected) => {
    const answer = await postVia(from, header);
    expect(answer.status).toBe(200);
    const [received] = await fake.waitForRequests(1);
    expect(received?.headers['x-sentry-forwarded-for']).toBe(expected);
  });
});
