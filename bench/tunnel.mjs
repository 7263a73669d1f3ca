// npm run bench: the tunnel's throughput and latency on loopback, side by side with
//   (a) a bare node:http streaming proxy (the floor any tunnel pays),
//   (b) Sentry's own handleTunnelRequest (@sentry/core) on node:http,
//   (c) our POST /monitoring in the production build (.output/server/index.mjs).
// Same ~6 KB error envelope and the same autocannon load for each; a fake Sentry ingest in
// its own process answers 200. Each server runs in its own process so that none shares an
// event loop with autocannon. Figures, not assertions: see README "Performance".
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_S = 2;

const role = process.argv[2];
if (role === 'ingest') await serveIngest();
else if (role === 'proxy') await serveBareProxy(process.argv[3]);
else if (role === 'sentry') await serveSentryHandler(process.argv[3]);
else await main();

// --- the servers under test (child processes) ------------------------------------------

function ready(server) {
  process.send?.({ port: server.address().port });
}

/** Fake Sentry: reads the whole envelope, answers 200 with the event id. */
async function serveIngest() {
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk) => {
      bytes += chunk.length;
    });
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"id":"${bytes}"}`);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => ready(server));
}

/** The floor: pipe the request to the ingest over kept-alive connections, pipe the answer back. */
async function serveBareProxy(ingestPort) {
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    const upstream = request(
      {
        host: '127.0.0.1',
        port: ingestPort,
        path: '/api/1/envelope/',
        method: 'POST',
        agent,
        headers: {
          'content-type': req.headers['content-type'] ?? 'text/plain',
          'content-length': req.headers['content-length'],
        },
      },
      (answer) => {
        res.writeHead(answer.statusCode, { 'content-type': answer.headers['content-type'] });
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1', () => ready(server));
}

/** Sentry's own tunnel handler, as its docs show it on node:http. */
async function serveSentryHandler(dsn) {
  const { handleTunnelRequest } = await import('@sentry/core');
  const server = createServer((req, res) => {
    handleTunnelRequest(req, res, { allowedDsns: [dsn] }).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.listen(0, '127.0.0.1', () => ready(server));
}

// --- the run ---------------------------------------------------------------------------

function startChild(args) {
  const child = fork(SELF, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', ({ port }) => resolve({ child, port }));
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

function startOurs(dsn) {
  const child = spawn(process.execPath, [`${ROOT}.output/server/index.mjs`], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      SENTRY_DSN: dsn,
      DEBUG: '',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /Listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}

/** A ~6 KB error event envelope, like the browser SDK sends for an exception with a stack. */
function errorEnvelope(dsn) {
  const eventId = 'a'.repeat(32);
  const frames = Array.from({ length: 46 }, (_, i) => ({
    filename: `https://example.com/_build/assets/client-${i}.js`,
    function: `handleClick${i}`,
    lineno: 100 + i,
    colno: 12,
    in_app: true,
  }));
  const event = {
    event_id: eventId,
    level: 'error',
    platform: 'javascript',
    exception: { values: [{ type: 'Error', value: 'Something broke', stacktrace: { frames } }] },
    request: {
      url: 'https://example.com/',
      headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64)' },
    },
  };
  const body = JSON.stringify(event);
  return `${JSON.stringify({ event_id: eventId, dsn, sent_at: new Date().toISOString() })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(body) })}\n${body}`;
}

async function load(url, body, duration) {
  const { default: autocannon } = await import('autocannon');
  return autocannon({
    url,
    method: 'POST',
    body,
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
    connections: CONNECTIONS,
    duration,
  });
}

/** CPU time (user + system, ms) a process used so far, from /proc (100 ticks a second); undefined elsewhere. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

async function measure(url, body, pid) {
  const cpuBefore = cpuMs(pid);
  const result = await load(url, body, DURATION_S);
  const cpuAfter = cpuMs(pid);
  return {
    // Server CPU per answered envelope: steadier than req/s when other jobs share the cores.
    cpuUs:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : ((cpuAfter - cpuBefore) * 1000) / Math.max(1, result['2xx']),
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    bad: result.non2xx + result.errors + result.timeouts,
  };
}

/** The round with the median throughput: one noisy round (two cores, four processes) does not decide. */
function median(name, runs) {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  return { name, ...sorted[Math.floor(sorted.length / 2)] };
}

async function main() {
  const ingest = await startChild(['ingest']);
  const dsn = `http://benchkey@127.0.0.1:${ingest.port}/1`;
  const body = errorEnvelope(dsn);
  const children = [ingest.child];
  try {
    const proxy = await startChild(['proxy', String(ingest.port)]);
    children.push(proxy.child);
    const sentry = await startChild(['sentry', dsn]);
    children.push(sentry.child);
    const ours = await startOurs(dsn);
    children.push(ours.child);

    const targets = [
      ['bare node:http proxy', `http://127.0.0.1:${proxy.port}/`, proxy.child.pid],
      ['@sentry/core handleTunnelRequest', `http://127.0.0.1:${sentry.port}/`, sentry.child.pid],
      [
        'our /monitoring (built server)',
        `http://127.0.0.1:${ours.port}/monitoring?o=0&p=1`,
        ours.child.pid,
      ],
    ];
    console.log(
      `Envelope ${Buffer.byteLength(body)} bytes, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${DURATION_S} s per target (after ${WARMUP_S} s warm-up), loopback; the median round is shown.\n`,
    );
    for (const [, url] of targets) await load(url, body, WARMUP_S);
    const runs = targets.map(() => []);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [index, [, url, pid]] of targets.entries()) {
        runs[index].push(await measure(url, body, pid));
      }
    }
    print(targets.map(([name], index) => median(name, runs[index])));
  } finally {
    // Ours first, and wait: killing the ingest under its last in-flight forwards would log 502s.
    for (const child of children.reverse()) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill();
      await exited;
    }
  }
}

function print(rows) {
  const [floor] = rows;
  const pad = (text, width) => String(text).padStart(width);
  console.log(
    `${'target'.padEnd(34)}${pad('req/s', 9)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('x req/s', 9)}${pad('x p99', 7)}${pad('CPU µs/req', 12)}${pad('2xx', 9)}${pad('failed', 8)}`,
  );
  for (const row of rows) {
    console.log(
      `${row.name.padEnd(34)}${pad(Math.round(row.rps), 9)}${pad(row.p50, 8)}${pad(row.p99, 8)}${pad((row.rps / floor.rps).toFixed(2), 9)}${pad((row.p99 / floor.p99).toFixed(2), 7)}${pad(row.cpuUs === undefined ? '-' : Math.round(row.cpuUs), 12)}${pad(row.ok, 9)}${pad(row.bad, 8)}`,
    );
  }
  const ours = rows[rows.length - 1];
  const throughputOk = ours.rps >= 0.8 * floor.rps;
  const latencyOk = ours.p99 <= 1.5 * floor.p99;
  console.log(
    `\nGoal (ours >= 0.80x proxy req/s, p99 <= 1.5x proxy p99): ${throughputOk && latencyOk ? 'met' : 'NOT met'}`,
  );
}
