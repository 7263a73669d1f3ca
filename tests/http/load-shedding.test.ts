/**
 * Load shedding: while the event loop lags past LOAD_SHEDDING_LAG_MS, new page requests get a
 * fast 503 with Retry-After before anything renders; /health (reporting "degraded"), the
 * tunnel, static files (precompressed too) and server functions are still served; once the load is gone, pages are
 * served again. The threshold is set very low so that a little load is enough.
 */
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/local-dsn';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { textEnvelope } from '#tests/support/envelopes';

let server: BuiltServer;

beforeAll(async () => {
  server = await startBuiltServer({ LOAD_SHEDDING_LAG_MS: '1' });
});
afterAll(() => server?.stop());

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

function get(path: string, agent?: Agent): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = request(
      `${server.url}${path}`,
      { agent, headers: { 'user-agent': BROWSER_USER_AGENT } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () =>
          done({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'] as string | undefined,
            body,
          }),
        );
      },
    );
    req.on('error', fail);
    req.end();
  });
}

/** Renders /about on 16 connections until stopped; returns every answer. */
function loadPages(): { stop(): Promise<Answer[]> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const answers: Answer[] = [];
  let running = true;
  const loops = Array.from({ length: 16 }, async () => {
    while (running) answers.push(await get('/about', agent));
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      agent.destroy();
      return answers;
    },
  };
}

it('sheds pages with a fast 503 while busy, serves /health, the tunnel and files, then recovers', async () => {
  const load = loadPages();
  // Wait for the condition, not a time: /health says it is shedding.
  let health = await (await fetch(`${server.url}/health`)).json();
  while (health.status !== 'degraded') {
    await new Promise((resolve) => setTimeout(resolve, 20));
    health = await (await fetch(`${server.url}/health`)).json();
  }
  expect(health.eventLoopLagMs).toBeGreaterThan(1);
  expect(health.reasons).toEqual([expect.stringMatching(/^pages-shed: event loop lag \d+ ms/)]);

  // What is never shed, asked while shedding.
  const report = await fetch(`${server.url}/monitoring?o=0&p=1`, {
    method: 'POST',
    body: new Uint8Array(textEnvelope(LOCAL_INBOX_DSN, undefined, 'reported while busy')),
  });
  expect(report.status).toBe(200);
  await report.text();
  // A listed public file, sent precompressed: its .br beside it does not change what it is.
  const favicon = await fetch(`${server.url}/favicon.svg`, {
    headers: { 'accept-encoding': 'br' },
  });
  expect(favicon.status).toBe(200);
  expect(favicon.headers.get('content-encoding')).toBe('br');
  await favicon.arrayBuffer();

  const answers = await load.stop();
  const shed = answers.filter((answer) => answer.status === 503);
  expect(shed.length).toBeGreaterThan(0);
  for (const answer of shed) {
    expect(answer.retryAfter).toBe('2');
    expect(answer.body).toBe('The server is busy; try again in a moment.');
  }
  expect(answers.every((answer) => answer.status === 200 || answer.status === 503)).toBe(true);

  // Quiet again: pages are served once the lag is back under half the threshold.
  let page = await get('/about');
  while (page.status === 503) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    page = await get('/about');
  }
  expect(page.status).toBe(200);
  // /health stays degraded a few seconds past the last page it turned away, then is ok again.
  health = await (await fetch(`${server.url}/health`)).json();
  while (health.status !== 'ok') {
    await new Promise((resolve) => setTimeout(resolve, 100));
    health = await (await fetch(`${server.url}/health`)).json();
  }
  expect(health.reasons).toEqual([]);

  // One line for the whole episode, not one per refused request.
  await server.stderrBarrier();
  const lines = server.output().split('\n');
  expect(lines.filter((line) => line.startsWith('[server] 503 GET /about'))).toHaveLength(1);
});
