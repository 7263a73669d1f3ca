/**
 * Server function calls the caller got wrong, over real sockets against the production build:
 * an oversized body is refused before anyone reads it, input the validator refuses is a 400
 * that is neither a failure nor a report, and what Start cannot parse is a short 400 or 405.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SERVER_FUNCTION_MAX_BODY_BYTES } from '#app/server/node/request-triage.server';
import { exampleServerWithFakeSentry } from '#tests/support/example-server-with-fake-sentry';
import { parseEnvelope } from '#tests/support/received-envelopes';
import {
  CLEAR_INBOX_FN,
  FAILING_EXAMPLE_FN,
  GET_INBOX_EVENT_FN,
  LIST_INBOX_ISSUES_FN,
} from '#tests/support/server-function-paths';

const DECLARED_BYTES = 200 * 1024 * 1024;

const app = exampleServerWithFakeSentry();

/** A GET the way Start's client fetcher encodes it: the payload in the query. */
function getCall(path: string, data: unknown): Promise<Response> {
  const payload = encodeURIComponent(JSON.stringify({ data, context: {} }));
  return fetch(`${app.server.url}${path}?createServerFn&payload=${payload}`);
}

function postCall(path: string, body: string): Promise<Response> {
  return fetch(`${app.server.url}${path}?createServerFn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body,
  });
}

/**
 * The lines the server printed while `run` ran, but for the barrier's own line: everything
 * about the request is on stderr before the barrier's line arrives.
 */
async function linesDuring(run: () => Promise<void>): Promise<string[]> {
  const start = app.server.output().length;
  await run();
  await app.server.stderrBarrier();
  return app.server
    .output()
    .slice(start)
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('[tunnel] 403 no allowed DSN'));
}

function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

interface RawExchange {
  /** What the server answered, as text. */
  response: string;
  /** Body bytes the client managed to hand to its socket before the server closed it. */
  bodyBytesSent: number;
}

/**
 * Sends `head` and a first piece of body, waits for the answer, then goes on sending body
 * (up to `moreBytes`) the way a client that ignores the answer would, until the server
 * closes the connection.
 */
function rawExchange(head: string, firstBody: string, moreBytes: number): Promise<RawExchange> {
  const { port, hostname } = new URL(app.server.url);
  return new Promise((done, fail) => {
    const socket = connect({ port: Number(port), host: hostname });
    let response = '';
    let sent = firstBody.length;
    let sending = false;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const sendMore = () => {
      while (sent < firstBody.length + moreBytes && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) {
          socket.once('drain', sendMore);
          return;
        }
      }
    };
    socket.on('connect', () => socket.write(head + firstBody));
    socket.on('data', (data) => {
      response += data.toString('latin1');
      if (!sending && response.includes('\r\n\r\n')) {
        sending = true;
        sendMore();
      }
    });
    // A reset (EPIPE, ECONNRESET) is how a server that stopped reading ends it.
    socket.on('error', () => {});
    socket.on('close', () => {
      if (response === '') fail(new Error('closed without an answer'));
      else done({ response, bodyBytesSent: sent });
    });
  });
}

function statusOf(rawResponse: string): number {
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(rawResponse)?.[1]);
}

function requestHead(path: string, headers: Record<string, string>): string {
  const { host } = new URL(app.server.url);
  const lines = Object.entries({ host, 'content-type': 'application/json', ...headers }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  return `POST ${path}?createServerFn HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

describe('the body limit', () => {
  it(`is ${SERVER_FUNCTION_MAX_BODY_BYTES} bytes: a body of exactly that much still reaches Start`, async () => {
    const filler = 'x'.repeat(SERVER_FUNCTION_MAX_BODY_BYTES - 40);
    const body = JSON.stringify({ data: { label: filler }, context: {} }).padEnd(
      SERVER_FUNCTION_MAX_BODY_BYTES,
      ' ',
    );
    expect(Buffer.byteLength(body)).toBe(SERVER_FUNCTION_MAX_BODY_BYTES);
    const response = await postCall(FAILING_EXAMPLE_FN, body);
    // The validator's answer (label too long), not the limit's.
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('label');
  });

  it('refuses a body one byte over it with 413, saying the limit', async () => {
    const over = SERVER_FUNCTION_MAX_BODY_BYTES + 1;
    const head = requestHead(FAILING_EXAMPLE_FN, { 'content-length': String(over) });
    const { response } = await rawExchange(head, '{"data":', over - '{"data":'.length);
    expect(statusOf(response)).toBe(413);
    expect(response).toContain(
      `body of ${over} bytes is over the limit of ${SERVER_FUNCTION_MAX_BODY_BYTES}`,
    );
  });

  it('refuses a declared 200 MB with 413 from the headers alone, and does not read it', async () => {
    const before = residentBytes(app.server.pid);
    let exchange: RawExchange | undefined;
    const lines = await linesDuring(async () => {
      exchange = await rawExchange(
        requestHead(FAILING_EXAMPLE_FN, { 'content-length': String(DECLARED_BYTES) }),
        '{"data":',
        DECLARED_BYTES,
      );
    });
    const { response, bodyBytesSent } = exchange as RawExchange;
    expect(statusOf(response)).toBe(413);
    expect(response.toLowerCase()).toContain('connection: close');
    expect(response).toContain(`over the limit of ${SERVER_FUNCTION_MAX_BODY_BYTES}`);
    // The server closed the connection long before the client could send what it declared.
    expect(bodyBytesSent).toBeLessThan(DECLARED_BYTES / 4);
    expect(residentBytes(app.server.pid) - before).toBeLessThan(32 * 1024 * 1024);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[server-fn\] 413 .*callFailingExample/);
  });

  it('refuses a chunked body (no Content-Length) with 411 without reading it', async () => {
    const before = residentBytes(app.server.pid);
    let exchange: RawExchange | undefined;
    const lines = await linesDuring(async () => {
      exchange = await rawExchange(
        requestHead(FAILING_EXAMPLE_FN, { 'transfer-encoding': 'chunked' }),
        `400\r\n${'x'.repeat(0x400)}\r\n`,
        DECLARED_BYTES,
      );
    });
    const { response, bodyBytesSent } = exchange as RawExchange;
    expect(statusOf(response)).toBe(411);
    expect(bodyBytesSent).toBeLessThan(DECLARED_BYTES / 4);
    expect(residentBytes(app.server.pid) - before).toBeLessThan(32 * 1024 * 1024);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[server-fn\] 411 /);
  });
});

describe('input the validator refuses is the caller’s fault', () => {
  it.each([
    ['a schema passed to .validator()', LIST_INBOX_ISSUES_FN, { page: 0 }, 'page: Invalid value'],
    [
      'the same, a string too short',
      GET_INBOX_EVENT_FN,
      { eventId: '' },
      'eventId: Invalid length',
    ],
    ['v.parse in a validator', CLEAR_INBOX_FN, { confirm: 'no' }, 'confirm: Invalid type'],
  ])('%s: 400 naming the field', async (_, path, data, expected) => {
    const response =
      path === CLEAR_INBOX_FN
        ? await postCall(path, JSON.stringify({ data, context: {} }))
        : await getCall(path, data);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(expected);
  });

  it('a huge field: a short answer, one short warning, no failure, no report', async () => {
    const secret = 'huge-field-secret-';
    const huge = secret + 'x'.repeat(60 * 1024);
    let response: Response | undefined;
    let body = '';
    const lines = await linesDuring(async () => {
      response = await postCall(CLEAR_INBOX_FN, JSON.stringify({ data: { confirm: huge } }));
      body = await response.text();
    });
    expect(response?.status).toBe(400);
    expect(body).toContain('confirm: Invalid type: Expected "clear"');
    expect(body.length).toBeLessThan(1024);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[server-fn\] 400 invalid input: confirm: .*clearInbox/);
    expect(lines[0]?.length).toBeLessThan(1024);

    // A failure after it is reported; had the refused call been reported, it was sent first.
    const failing = await postCall(
      FAILING_EXAMPLE_FN,
      JSON.stringify({ data: { label: 'after' }, context: {} }),
    );
    const { digest } = JSON.parse(await failing.text()).$error;
    const received = await app.sentry.waitForRequests(1);
    const events = received.flatMap((request) =>
      parseEnvelope(request.body).items.filter((item) => item.header.type === 'event'),
    );
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events[0]?.payload)).toContain(digest);
    expect(received.some((request) => request.body.includes(secret))).toBe(false);
  });
});

describe('what Start cannot parse', () => {
  it.each([
    [
      'POST with bad JSON',
      () => postCall(FAILING_EXAMPLE_FN, '{"data":'),
      'payload is not valid JSON',
    ],
    ['POST without a body', () => postCall(FAILING_EXAMPLE_FN, ''), 'no payload'],
    [
      'GET without a payload',
      () => fetch(`${app.server.url}${LIST_INBOX_ISSUES_FN}?createServerFn`),
      'no payload',
    ],
    [
      'GET with bad JSON',
      () => fetch(`${app.server.url}${LIST_INBOX_ISSUES_FN}?createServerFn&payload=%7Bbad`),
      'payload is not valid JSON',
    ],
    [
      'a form without its boundary',
      () =>
        fetch(app.server.url + CLEAR_INBOX_FN, {
          method: 'POST',
          headers: { 'content-type': 'multipart/form-data' },
          body: 'confirm=clear',
        }),
      'body is not valid form data',
    ],
  ])('%s: 400 with a short reason, one line', async (_, send, reason) => {
    let response: Response | undefined;
    let body = '';
    const lines = await linesDuring(async () => {
      response = await send();
      body = await response.text();
    });
    expect(response?.status).toBe(400);
    expect(body).toBe(reason);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[server-fn\] 400 /);
  });

  it.each(['PUT', 'DELETE', 'PATCH'])('%s: 405 with Allow: GET, POST, one line', async (method) => {
    let response: Response | undefined;
    const lines = await linesDuring(async () => {
      response = await fetch(`${app.server.url}${FAILING_EXAMPLE_FN}?createServerFn`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ data: { label: 'x' }, context: {} }),
      });
      await response.text();
    });
    expect(response?.status).toBe(405);
    expect(response?.headers.get('allow')).toBe('GET, POST');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[server-fn\] 405 /);
  });
});
