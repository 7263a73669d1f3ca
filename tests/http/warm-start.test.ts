/**
 * Warm start: a server started cold, on a busy machine, answers its very first pages with 200,
 * asked the moment its port accepts a connection (not after the start line, nor after /health).
 * Before the warm-up (decision 1030) the first pages were 503 "The server is busy": the lag of the
 * server's own start (loading its modules, its first renders) was judged as overload.
 * The machine is made busy by the test: one process spinning per core, from before the server
 * starts until its port accepts (kept spinning while the first pages render, the machine itself
 * is overloaded, and shedding then is load shedding's job). Load shedding is on, at its
 * production default.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { BUILT_ENTRY, stopChild, testEnv, watchOutput } from '#tests/support/built-server';
import { withoutTextSeparators } from '#tests/support/html-text';
import { until } from '#tests/support/wait-for';

const HOLD_WORKER_LISTEN = resolve(import.meta.dirname, '../fixtures/hold-worker-listen.cjs');
/** A cold start on a busy 2-core machine took up to 30 s. */
const START_DEADLINE_MS = 90_000;

/** The pages a new visitor opens first, and a text each shows. */
const FIRST_PAGES: Array<[path: string, text: string]> = [
  ['/', 'tanstack-start-monitoring'],
  ['/about', 'How errors are handled'],
  ['/errors/sign-in', 'Error inbox'],
];

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One process spinning per core: the machine is busy until they are stopped. */
function busyMachine(): () => void {
  const spinners = Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  const stop = () => {
    for (const spinner of spinners) spinner.kill('SIGKILL');
  };
  cleanups.push(stop);
  return stop;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The built server, started cold on `port` (its start line is not waited for). */
function startCold(port: number, env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [BUILT_ENTRY], {
    env: testEnv({
      PORT: String(port),
      // The production default (testEnv turns it off for the other tests).
      LOAD_SHEDDING_LAG_MS: '100',
      // As a new user's `npm start`: /errors asks for a sign-in, also from this machine.
      MONITORING_INBOX_TRUST_LOOPBACK: 'false',
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const watched = watchOutput(child);
  cleanups.push(() => stopChild(child, watched.exited));
  return watched;
}

/**
 * Resolves once the port accepts a connection. A connect to a free port in the ephemeral range
 * can connect to itself (TCP simultaneous open, source port = destination port): not the server.
 */
async function portAccepts(port: number, output: () => string): Promise<void> {
  const accepted = () =>
    new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        const self = socket.localPort === socket.remotePort;
        socket.destroy();
        done(!self);
      });
      socket.once('error', () => done(false));
    });
  await until(() => `port ${port} to accept. Output:\n${output()}`, accepted, {
    timeoutMs: START_DEADLINE_MS,
  });
}

/** A page on a connection of its own: with several workers, connections go to each in turn. */
function page(port: number, path: string): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        agent: false,
        headers: { 'user-agent': BROWSER_USER_AGENT },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () =>
          done({ status: res.statusCode ?? 0, text: withoutTextSeparators(body) }),
        );
      },
    );
    req.on('error', fail);
    req.end();
  });
}

/** Every first page, all at once as soon as the port accepts: each is a 200 with its text. */
async function expectFirstPagesServed(port: number, output: () => string): Promise<void> {
  const answers = await Promise.all(FIRST_PAGES.map(([path]) => page(port, path)));
  expect(
    answers.map((answer) => answer.status),
    `the server's output:\n${output()}`,
  ).toEqual(FIRST_PAGES.map(() => 200));
  FIRST_PAGES.forEach(([, text], index) => {
    expect(answers[index]?.text).toContain(text);
  });
}

async function health(
  port: number,
): Promise<{ httpStatus: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}/health`);
  return { httpStatus: response.status, body: await response.json() };
}

it('one process: the first pages are 200 the moment the port accepts, on a busy machine', {
  timeout: START_DEADLINE_MS + 30_000,
}, async () => {
  const port = await freePort();
  const idle = busyMachine();
  const server = startCold(port, { WEB_CONCURRENCY: '1' });
  await portAccepts(port, server.output);
  await expectFirstPagesServed(port, server.output);
  idle();
  // It listened once warm: its start line is out, and /health has nothing to wait for.
  await server.waitForOutput(/Listening on http:\/\/127\.0\.0\.1:\d+ \(one process/);
  const answer = await health(port);
  expect(answer.httpStatus).toBe(200);
  expect(answer.body.status).toBe('ok');
  expect(server.output()).not.toMatch(/\[server\] 503/);
});

it('two workers: pages are 200 from the first worker warm on, /health is 503 "starting" until every worker is, then the start line', {
  timeout: START_DEADLINE_MS + 30_000,
}, async () => {
  const port = await freePort();
  const idle = busyMachine();
  const server = startCold(port, {
    WEB_CONCURRENCY: '2',
    // Worker 2 holds its listen (once warm) until told: the moment in between is held still.
    NODE_OPTIONS: `--require ${HOLD_WORKER_LISTEN}`,
  });
  await portAccepts(port, server.output);
  await expectFirstPagesServed(port, server.output);
  idle();

  // Worker 1 serves; the server is not up yet: a load balancer waits.
  const holding = await server.waitForOutput(
    /\[test\] worker 2 holds its listen \(pid (\d+)\)/,
    START_DEADLINE_MS,
  );
  const starting = await health(port);
  expect(starting.httpStatus).toBe(503);
  expect(starting.body).toMatchObject({
    status: 'starting',
    reasons: ['starting: 1 of 2 workers serving'],
    workers: { up: 1, of: 2 },
  });
  expect(server.output()).not.toContain('Listening on');

  // Worker 2 listens: the start line, then /health is ok for the whole server.
  process.kill(Number(/pid (\d+)/.exec(holding)?.[1]), 'SIGUSR2');
  await server.waitForOutput(/Listening on http:\/\/127\.0\.0\.1:\d+ with 2 workers/);
  const up = await health(port);
  expect(up.httpStatus).toBe(200);
  expect(up.body).toMatchObject({ status: 'ok', reasons: [], workers: { up: 2, of: 2 } });
  // Both workers serve pages, worker 2's first ones included (three connections: each worker
  // gets at least one).
  const again = await Promise.all(FIRST_PAGES.map(([path]) => page(port, path)));
  expect(again.map((answer) => answer.status)).toEqual(FIRST_PAGES.map(() => 200));
  expect(server.output()).not.toMatch(/\[server\] 503/);
});
