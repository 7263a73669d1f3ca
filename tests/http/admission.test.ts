/**
 * Admission that cannot be captured (issue 22): a page holds a render place while it renders,
 * not while it waits for its deferred parts, and server-function calls wait for places of their
 * own, so neither callers of a public server function nor open streams keep pages from
 * rendering. Over real sockets against the production build; no timing assertions: each test
 * holds requests open by means it controls, and checks what is still answered meanwhile.
 */
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import {
  GET_APP_OVERVIEW_FN,
  GET_RUNTIME_HEALTH_FN,
  SIGN_IN_TO_INBOX_FN,
} from '#tests/support/server-function-paths';

/** Render places (CONCURRENT_RENDERS), and as many server-function places. */
const PLACES = 8;
/** Clients enough that each keeps within SERVER_FUNCTION_CALLS_PER_CLIENT (half the places). */
const CLIENTS = 4;

let server: BuiltServer;

beforeAll(async () => {
  server = await startBuiltServer();
});
afterAll(() => server?.stop());

interface Answer {
  status: number;
  body: string;
}

function get(path: string, agent?: Agent, localAddress?: string): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = request(
      `${server.url}${path}`,
      { agent, localAddress, headers: { 'user-agent': BROWSER_USER_AGENT } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, body }));
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end();
  });
}

/** A GET call the way Start's client makes it: the payload in the query. */
function callPath(path: string, data: unknown): string {
  return `${path}?createServerFn&payload=${encodeURIComponent(JSON.stringify({ data, context: {} }))}`;
}

/**
 * A server-function call whose body never finishes arriving: it holds one of its client's call
 * slots until the client gives up (the entry reads the body before the call takes a place,
 * decision 1012). `Expect: 100-continue` makes Node answer "100 Continue" just before it hands
 * the request to the server's handler, so once that arrives the call holds its slot.
 */
function heldCall(localAddress: string): Promise<{ socket: Socket; answered: () => boolean }> {
  const { hostname, port, host } = new URL(server.url);
  return new Promise((done, fail) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    let received = '';
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      const before = received;
      received += chunk.toString('latin1');
      if (!before.includes('100 Continue') && received.includes('100 Continue')) {
        socket.write('{"data":{"token":"');
        done({ socket, answered: () => /HTTP\/1\.1 [2-5]\d\d /.test(received) });
      }
    });
    socket.once('close', () => fail(new Error(`closed before 100 Continue: ${received}`)));
    socket.on('connect', () =>
      socket.write(
        `POST ${SIGN_IN_TO_INBOX_FN}?createServerFn HTTP/1.1\r\nHost: ${host}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n',
      ),
    );
  });
}

describe('server-function calls wait apart from pages', () => {
  it(`pages render while ${2 * PLACES} server-function calls trickle their bodies`, async () => {
    // From clients of their own (127.0.6.x), each within its share of the places.
    const held = await Promise.all(
      Array.from({ length: 2 * PLACES }, (_, i) => heldCall(`127.0.6.${1 + (i % CLIENTS)}`)),
    );
    try {
      for (let i = 0; i < 10; i++) {
        const about = await get('/about');
        expect(about.status).toBe(200);
        expect(about.body).toContain('How errors are handled');
      }
      // The calls were still holding their places throughout.
      expect(held.filter((call) => call.answered() || call.socket.destroyed)).toEqual([]);
    } finally {
      for (const call of held) call.socket.destroy();
    }
    // Long enough that a page waiting behind the calls would be answered: 503, once the calls
    // time out (REQUEST_TIMEOUT_MS, 30 s), since it waited longer than MAX_RENDER_WAIT_MS.
  }, 45_000);

  it('holds one client to half the places: its next call is a 429, another client’s call is answered', async () => {
    const held = await Promise.all(Array.from({ length: PLACES / 2 }, () => heldCall('127.0.8.1')));
    try {
      const refused = await get(callPath(GET_APP_OVERVIEW_FN, {}), undefined, '127.0.8.1');
      expect(refused.status).toBe(429);
      const other = await get(callPath(GET_APP_OVERVIEW_FN, {}), undefined, '127.0.8.2');
      expect(other.status).toBe(200);
    } finally {
      for (const call of held) call.socket.destroy();
    }
  });

  it('16 looping callers of getRuntimeHealth, asking for 2 s samples, leave every page answered', async () => {
    const agents = Array.from(
      { length: CLIENTS },
      () => new Agent({ keepAlive: true, maxSockets: 4 }),
    );
    const calls: Answer[] = [];
    let calling = true;
    const callers = Array.from({ length: 16 }, async (_, i) => {
      // What the public function once took: how long the server should watch, up to 2 s.
      while (calling)
        calls.push(
          await get(
            callPath(GET_RUNTIME_HEALTH_FN, { sampleMs: 2000 }),
            agents[i % CLIENTS],
            `127.0.7.${1 + (i % CLIENTS)}`,
          ),
        );
    });
    const pages: Answer[] = [];
    try {
      for (let i = 0; i < 20; i++) pages.push(await get('/about'));
    } finally {
      calling = false;
      await Promise.all(callers);
      for (const agent of agents) agent.destroy();
    }
    expect(pages.map((page) => page.status)).toEqual(Array(20).fill(200));
    expect(calls.length).toBeGreaterThanOrEqual(16);
    for (const call of calls) {
      expect(call.status).toBe(200);
      const { result } = JSON.parse(call.body);
      // The window is the server's, whatever was asked; and no diagnostics.
      expect(result.windowMs).toBeLessThan(2000);
      expect(Object.keys(result).sort()).toEqual([
        'eventLoopDelayMaxMs',
        'eventLoopDelayP50Ms',
        'eventLoopDelayP99Ms',
        'uptimeSeconds',
        'windowMs',
      ]);
    }
  });
});

/** A streamed home page read as a browser reads it: `shell` once its shell has arrived. */
function homePage() {
  let ended = false;
  const shell = new Promise<void>((done, fail) => {
    const req = request(
      `${server.url}/`,
      { agent: false, headers: { 'user-agent': BROWSER_USER_AGENT } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          if (body.includes('Monitoring</h2>')) done();
        });
        res.on('end', () => {
          ended = true;
          fail(new Error('ended before its shell'));
        });
      },
    );
    req.on('error', fail);
    req.end();
  });
  return { shell, ended: () => ended };
}

describe('a page whose shell is sent', () => {
  it(`holds no render place: with more than ${PLACES} home pages streaming, pages and calls are answered`, async () => {
    // Each home page streams its deferred part once a whole event-loop window has passed
    // after its loader ran. Twelve pages' shells usually all arrive within one window; when
    // the machine is too busy for that, try again.
    let mostOpen = 0;
    for (let attempt = 0; attempt < 5 && mostOpen <= PLACES; attempt++) {
      const pages = Array.from({ length: 12 }, () => homePage());
      await Promise.all(pages.map((page) => page.shell));
      const open = pages.filter((page) => !page.ended()).length;
      mostOpen = Math.max(mostOpen, open);
      if (open > PLACES) {
        // Sent while they stream: each needs a place of its own kind.
        const [about, overview] = await Promise.all([
          get('/about'),
          get(callPath(GET_APP_OVERVIEW_FN, undefined)),
        ]);
        expect(about.status).toBe(200);
        expect(overview.status).toBe(200);
      }
    }
    // With a render place held until the response ended, at most PLACES could ever be open.
    expect(mostOpen).toBeGreaterThan(PLACES);
  });
});
