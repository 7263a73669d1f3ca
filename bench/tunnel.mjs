// npm run bench: the tunnel's throughput and latency on loopback, side by side with
//   (a) a bare node:http streaming proxy (bench/bare-proxy.mjs): the floor any tunnel pays,
//   (b) Sentry's own handleTunnelRequest (@sentry/core) on node:http,
//   (c) our POST /monitoring in the production build (its built server entry), in a fresh
//       server and in one that has rendered pages first, as a deployed server has.
// A rendered page switches on Start's AsyncLocalStorage, whose hooks then run for every async
// resource in the process: every request there costs more, whatever serves it. So the
// rendered-pages server also carries the bare proxy (loaded with --import), and our tunnel
// there is compared with that floor, in the same process (docs/decisions/0102).
// Same ~6 KB error envelope and the same autocannon load for each; a fake Sentry ingest in
// its own process answers 200. Each server runs in its own process so that none shares an
// event loop with autocannon. Figures, not assertions: see docs/performance.md.
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { startBareProxy } from './bare-proxy.mjs';
import { errorEnvelope } from './envelopes.mjs';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_S = 2;

const role = process.argv[2];
if (role === 'ingest') await serveIngest();
else if (role === 'proxy') ready(await startBareProxy(Number(process.argv[3])));
else if (role === 'sentry') await serveSentryHandler(process.argv[3]);
else await main();

// --- the servers under test (child processes) ------------------------------------------

function ready(serverOrPort) {
  const port = typeof serverOrPort === 'number' ? serverOrPort : serverOrPort.address().port;
  process.send?.({ port });
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

/** Our built server; with `proxyFor` (the ingest's port) it also carries the bare proxy. */
function startOurs(dsn, proxyFor) {
  const preload = proxyFor === undefined ? [] : ['--import', `${ROOT}bench/bare-proxy.mjs`];
  const child = spawn(process.execPath, [...preload, `${ROOT}.output/server/index.mjs`], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      // One process, the bare proxy beside it in the same one (bench:pages measures workers).
      WEB_CONCURRENCY: '1',
      SENTRY_DSN: dsn,
      DEBUG: '',
      BENCH_PROXY_INGEST_PORT: proxyFor === undefined ? '' : String(proxyFor),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const listening = /Listening on http:\/\/[^:]+:(\d+)/.exec(output);
      const proxy = /\[bench\] in-process proxy on port (\d+)/.exec(output);
      if (listening && (proxyFor === undefined || proxy)) {
        resolve({ child, port: Number(listening[1]), proxyPort: proxy && Number(proxy[1]) });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}

/** Renders pages as a browser would ask for them, so the server is in its deployed state. */
async function renderPages(port) {
  for (const path of ['/', '/about']) {
    const page = await fetch(`http://127.0.0.1:${port}${path}`, {
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36' },
    });
    await page.text();
    if (page.status !== 200) throw new Error(`GET ${path} answered ${page.status}`);
  }
}

/**
 * Runs the load; resolves with autocannon's result and every 2xx latency in ms. autocannon's
 * own percentiles are whole milliseconds, too coarse when the floor's p99 is 3–5 ms: the
 * latencies are taken from its per-response event instead (hrtime, fractions of a ms).
 */
async function load(url, body, duration) {
  const { default: autocannon } = await import('autocannon');
  const latencies = [];
  const run = autocannon({
    url,
    method: 'POST',
    body,
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
    connections: CONNECTIONS,
    duration,
  });
  run.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  return { result: await run, latencies };
}

function percentile(sorted, fraction) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
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
  const { result, latencies } = await load(url, body, DURATION_S);
  const cpuAfter = cpuMs(pid);
  const sorted = Float64Array.from(latencies).sort();
  return {
    // Server CPU per answered envelope: steadier than req/s when other jobs share the cores.
    cpuUs:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : ((cpuAfter - cpuBefore) * 1000) / Math.max(1, result['2xx']),
    rps: result.requests.average,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
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
    const deployed = await startOurs(dsn, ingest.port);
    children.push(deployed.child);
    await renderPages(deployed.port);

    // `floor`: the row whose figures this one is divided by.
    const targets = [
      {
        name: 'bare node:http proxy',
        url: `http://127.0.0.1:${proxy.port}/`,
        pid: proxy.child.pid,
        floor: 0,
      },
      {
        name: '@sentry/core handleTunnelRequest',
        url: `http://127.0.0.1:${sentry.port}/`,
        pid: sentry.child.pid,
        floor: 0,
      },
      {
        name: 'our /monitoring, fresh server',
        url: `http://127.0.0.1:${ours.port}/monitoring?o=0&p=1`,
        pid: ours.child.pid,
        floor: 0,
      },
      {
        name: 'bare proxy, in our server *',
        url: `http://127.0.0.1:${deployed.proxyPort}/`,
        pid: deployed.child.pid,
        floor: 0,
      },
      {
        name: 'our /monitoring, same server *',
        url: `http://127.0.0.1:${deployed.port}/monitoring?o=0&p=1`,
        pid: deployed.child.pid,
        floor: 3,
      },
    ];
    console.log(
      `Envelope ${Buffer.byteLength(body)} bytes, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${DURATION_S} s per target (after ${WARMUP_S} s warm-up), loopback; the median round is shown.\n`,
    );
    for (const { url } of targets) await load(url, body, WARMUP_S);
    const runs = targets.map(() => []);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [index, { url, pid }] of targets.entries()) {
        runs[index].push(await measure(url, body, pid));
      }
    }
    print(targets.map((target, index) => ({ ...median(target.name, runs[index]), ...target })));
  } finally {
    // Ours first, and wait: killing the ingest under its last in-flight forwards would log 502s.
    for (const child of children.reverse()) {
      // One that already exited (crashed) sends no 'exit' again: waiting for it would hang.
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill();
      await exited;
    }
  }
}

function print(rows) {
  const pad = (text, width) => String(text).padStart(width);
  console.log(
    `${'target'.padEnd(34)}${pad('req/s', 9)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('x req/s', 9)}${pad('x p99', 7)}${pad('CPU µs/req', 12)}${pad('2xx', 9)}${pad('failed', 8)}`,
  );
  for (const row of rows) {
    const floor = rows[row.floor];
    console.log(
      `${row.name.padEnd(34)}${pad(Math.round(row.rps), 9)}${pad(row.p50.toFixed(2), 8)}${pad(row.p99.toFixed(2), 8)}${pad((row.rps / floor.rps).toFixed(2), 9)}${pad((row.p99 / floor.p99).toFixed(2), 7)}${pad(row.cpuUs === undefined ? '-' : Math.round(row.cpuUs), 12)}${pad(row.ok, 9)}${pad(row.bad, 8)}`,
    );
  }
  console.log(
    `\n* one server that has rendered pages first (Start's AsyncLocalStorage is on): the proxy
  runs there beside our tunnel, and the tunnel's ratios are to that proxy. x columns: this row
  divided by its floor (the bare proxy row above it).`,
  );
  const met = (row) => row.rps >= 0.8 * rows[row.floor].rps && row.p99 <= 1.5 * rows[row.floor].p99;
  const ours = rows.filter((row) => row.name.startsWith('our '));
  console.log(
    `\nGoal (ours >= 0.80x its floor's req/s, p99 <= 1.5x its floor's, in both of our rows): ${ours.every(met) ? 'met' : 'NOT met'}`,
  );
}
