/**
 * What an anonymous client can make the server do with a bad URL or a flood of bad posts,
 * against the production build: a 400 or 404, never a failure that is logged and reported, and
 * a log that a flood cannot fill (issue 22, findings 5 and 7).
 */
import { type IncomingHttpHeaders, request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { LINES_PER_KIND_PER_MINUTE } from '#app/server/logging/rate-limited-log';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { textEnvelope } from '#tests/support/envelopes';
import { GET_INBOX_EVENT_FN, SIGN_IN_TO_INBOX_FN } from '#tests/support/server-function-paths';

const LONG_ID = 'a'.repeat(201);

/** Bad ways into the inbox's pages, and what each must answer. */
const BAD_INBOX_REQUESTS: Array<[path: string, status: number]> = [
  [`/errors/${LONG_ID}`, 404],
  ['/errors?page=1e20', 404],
  ['/errors?page=abc', 404],
  ['/errors?page=-1', 404],
  ['/errors?page=2', 404], // past the last page of an empty inbox
  ['/errors/%', 400],
  ['/errors/%E0%A4%A', 400],
  ['/errors/%00', 400],
  ['//errors', 404],
  ['/./errors', 404],
  ['/x/../errors', 404],
  ['/errors%2F..%2Ferrors', 404],
  ['/\\errors', 404],
  ['/errors\\', 404],
];

/** A GET as a browser sends it, with the path exactly as given (fetch would normalise it). */
function get(
  server: BuiltServer,
  path: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((done, fail) => {
    const req = request(
      { host: hostname, port, path, headers: { 'user-agent': BROWSER_USER_AGENT } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end();
  });
}

describe('bad URLs in local inbox mode', () => {
  let server: BuiltServer;
  beforeAll(async () => {
    server = await startBuiltServer();
  });
  afterAll(() => server?.stop());

  it.each(BAD_INBOX_REQUESTS)(
    '%s answers %i, uncached, and is no failure',
    async (path, status) => {
      const mark = server.output().length;
      const answer = await get(server, path);
      expect(answer.status).toBe(status);
      expect(answer.headers['cache-control']).toBe('no-store');
      const printed = await server.printedSince(mark);
      expect(printed).not.toContain('"level":"error"');
      expect(printed).not.toContain('[server-fn]');
    },
  );

  it('stores nothing in the inbox for any of them', async () => {
    for (const [path] of BAD_INBOX_REQUESTS) await get(server, path);
    const list = await get(server, '/errors');
    expect(list.status).toBe(200);
    expect(list.body).toContain('0 issues, 0 events (0 stored).');
  });

  it('answers a BigInt where a server function takes a string 400, not a reported failure', async () => {
    const mark = server.output().length;
    const payload = encodeURIComponent(JSON.stringify({ data: { eventId: { $bigint: '1' } } }));
    const answer = await get(server, `${GET_INBOX_EVENT_FN}?createServerFn&payload=${payload}`);
    expect(answer.status).toBe(400);
    const printed = await server.printedSince(mark);
    expect(printed).not.toContain('"level":"error"');
    expect(printed).toMatch(/\[server-fn\] 400 invalid input/);
  });

  it('still serves the inbox itself, a real page number and an unknown id as before', async () => {
    expect((await get(server, '/errors?page=1')).status).toBe(200);
    expect((await get(server, `/errors/${'f'.repeat(32)}`)).status).toBe(404);
  });
});

describe('the inbox with SENTRY_DSN set', () => {
  let server: BuiltServer;
  let sentry: FakeSentry;
  beforeAll(async () => {
    sentry = await startFakeSentry();
    server = await startBuiltServer({ SENTRY_DSN: sentry.dsn('42') });
  });
  afterAll(async () => {
    await server?.stop();
    await sentry?.close();
  });

  it.each([
    '/errors',
    '/errors/sign-in',
    `/errors/${'f'.repeat(32)}`,
    `/errors/${LONG_ID}`,
    '/errors?page=1e20',
  ])('%s is the not-found page, and nothing is logged or reported', async (path) => {
    const mark = server.output().length;
    const answer = await get(server, path);
    expect(answer.status).toBe(404);
    expect(answer.body).toContain('<h1>Page not found</h1>');
    expect(await server.printedSince(mark)).toBe('');
    // The barrier's own post went to the tunnel (403, never forwarded): Sentry got nothing.
    expect(sentry.received).toEqual([]);
  });
});

describe('a flood of rejected tunnel posts', () => {
  let server: BuiltServer;
  beforeAll(async () => {
    server = await startBuiltServer();
  });
  afterAll(() => server?.stop());

  it('writes at most the per-kind budget of lines however many arrive', async () => {
    const mark = server.output().length;
    const posts = 400;
    for (let batch = 0; batch < posts / 50; batch++) {
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          const response = await fetch(`${server.url}/monitoring?o=x&p=1`, {
            method: 'POST',
            body: new Uint8Array(textEnvelope(LOCAL_INBOX_DSN)),
          });
          expect(response.status).toBe(400);
          await response.text();
        }),
      );
    }
    const printed = await server.printedSince(mark);
    const lines = printed.split('\n').filter((line) => line.startsWith('[tunnel] 400 '));
    expect(lines).toHaveLength(LINES_PER_KIND_PER_MINUTE);
    // Another kind is not crowded out by the flood.
    const before = server.output().length;
    await fetch(`${server.url}/monitoring?o=0&p=1`, { method: 'GET' }).then((r) => r.text());
    expect(await server.printedSince(before)).toMatch(/^\[tunnel\] 405 method GET not allowed/);
  });
});

describe('clients that abort server-function bodies', () => {
  let server: BuiltServer;
  beforeAll(async () => {
    server = await startBuiltServer();
  });
  afterAll(() => server?.stop());

  it('cost one line an episode, not a stack each', async () => {
    const mark = server.output().length;
    const { hostname, port } = new URL(server.url);
    for (let i = 0; i < 30; i++) {
      await new Promise<void>((done) => {
        const socket = connect({ host: hostname, port: Number(port) }, () => {
          socket.write(
            `POST ${SIGN_IN_TO_INBOX_FN} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"data":{"token":"`,
          );
          // Long enough for the server to start reading the body, then gone.
          setTimeout(() => socket.destroy(), 20);
        });
        socket.on('close', () => done());
        socket.on('error', () => undefined);
      });
    }
    // The aborts are noticed as each socket closes: wait for the first line, if any is coming.
    const printed = await server.printedSince(mark);
    expect(printed).not.toContain('H3Error');
    expect(printed).not.toMatch(/^\s+at /m);
    expect(printed.match(/\[request error\]/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});

describe('malformed hosts and methods', () => {
  let server: BuiltServer;
  beforeAll(async () => {
    server = await startBuiltServer();
  });
  afterAll(() => server?.stop());

  /** A request with these headers as given (node:http sends a Host of its own otherwise). */
  function raw(method: string, path: string, headers: Record<string, string>) {
    const { hostname, port } = new URL(server.url);
    return new Promise<number>((done, fail) => {
      const socket = connect({ host: hostname, port: Number(port) }, () => {
        const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
        socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join('')}Connection: close\r\n\r\n`);
      });
      let head = '';
      socket.on('data', (chunk) => {
        head += chunk.toString('latin1');
      });
      socket.on('end', () => done(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)));
      socket.on('error', fail);
    });
  }

  it.each(['a^b', 'a|b', 'a<b', 'a@b', 'a:99999', '[::1', 'a%zz'])(
    'answers Host %j 400 on a page and a server function, logging nothing',
    async (host) => {
      const mark = server.output().length;
      const ua = { 'User-Agent': BROWSER_USER_AGENT };
      expect(await raw('GET', '/about', { Host: host, ...ua })).toBe(400);
      expect(await raw('GET', `${SIGN_IN_TO_INBOX_FN}?createServerFn`, { Host: host, ...ua })).toBe(
        400,
      );
      expect(
        await raw('GET', '/about', { Host: 'localhost', 'X-Forwarded-Host': host, ...ua }),
      ).toBe(400);
      expect(await server.printedSince(mark)).toBe('');
    },
  );

  it('answers TRACE 405, logging nothing', async () => {
    const mark = server.output().length;
    expect(await raw('TRACE', '/about', { Host: 'localhost' })).toBe(405);
    expect(await server.printedSince(mark)).toBe('');
  });
});
