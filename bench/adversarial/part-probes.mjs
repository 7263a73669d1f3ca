// Part 1: /health and the tunnel probed on new connections while /about is under -c64, with
// load shedding off and at its default, in Sentry mode and in local inbox mode; and what the
// tunnel and the pages still serve meanwhile. The floor row of each server is the same probes
// with no load at all.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clientReportEnvelope, errorEnvelope } from '../envelopes.mjs';
import { forkNode, nextMessage, sleep, stop } from './children.mjs';
import { startLoad } from './load.mjs';
import { latencies, PROBE_INTERVAL_MS, probe, probeEvery, summarise } from './probe.mjs';
import { BROWSER_UA, firstLine, printComplaints, renderPages, startServer } from './server.mjs';
import { printTable } from './table.mjs';
import { makeTempDir, removeTempDir } from './temp-dirs.mjs';

const TUNNEL_BENCH = fileURLToPath(new URL('../tunnel.mjs', import.meta.url));
const TUNNEL_PATH = '/monitoring?o=0&p=1';
const LOCAL_DSN = 'http://localinbox@localhost/1';
const PAGE_CONNECTIONS = 64;
const TUNNEL_CONNECTIONS = 8;
const FLOOR_MS = 3_000;
const FLOOR_TUNNEL_LOAD_S = 3;
const RAMP_MS = 1_000;
const PROBE_MS = 8_000;
const TUNNEL_LOAD_S = 5;
// The page load covers the ramp, the probes, then the tunnel's throughput run, one after the
// other: the probes see only the pages' load, the goal's condition.
const PAGE_LOAD_S = (RAMP_MS + PROBE_MS) / 1000 + TUNNEL_LOAD_S + 1;
const GOAL_MS = 100;

export async function probesPart() {
  console.log(
    `Part 1. /health and the tunnel (${TUNNEL_PATH}, a client report) probed every ${PROBE_INTERVAL_MS} ms each on a new connection,
with no load (floor), then while /about is under autocannon -c${PAGE_CONNECTIONS} (browser User-Agent) for ${PAGE_LOAD_S} s:
probes in its seconds 1-${(RAMP_MS + PROBE_MS) / 1000}, then the tunnel's throughput (-c${TUNNEL_CONNECTIONS}, ~6 KB error envelopes) for ${TUNNEL_LOAD_S} s.
The floor's throughput row is the same -c${TUNNEL_CONNECTIONS} run for ${FLOOR_TUNNEL_LOAD_S} s with no page load.\n`,
  );
  // bench/tunnel.mjs's fake Sentry, in its own process: reads each envelope, answers 200.
  const ingest = forkNode(TUNNEL_BENCH, ['ingest']);
  const inboxRoot = makeTempDir('adversarial-probes-');
  const rows = [];
  const failed = [];
  const servers = [];
  try {
    const { port: ingestPort } = await nextMessage(ingest, 10_000);
    const sentryDsn = `http://benchkey@127.0.0.1:${ingestPort}/1`;
    for (const mode of ['sentry', 'local inbox']) {
      for (const shedding of ['off', 'default']) {
        const label = `${mode}, shedding ${shedding === 'off' ? 'off' : 'at 100 ms'}`;
        console.log(`  measuring: ${label}…`);
        const dsn = mode === 'sentry' ? sentryDsn : LOCAL_DSN;
        const env = {
          SENTRY_DSN: mode === 'sentry' ? sentryDsn : '',
          MONITORING_INBOX_DIR:
            mode === 'sentry' ? undefined : join(inboxRoot, `${servers.length}`),
          LOAD_SHEDDING_LAG_MS: shedding === 'off' ? '0' : undefined,
        };
        // One server failing (one that would not start) leaves the others' figures.
        try {
          rows.push(...(await measureServer(label, env, dsn, servers)));
        } catch (error) {
          failed.push({ label, error: firstLine(error) });
          process.exitCode = 1;
        }
      }
    }
  } finally {
    await stop(ingest);
    removeTempDir(inboxRoot);
  }
  console.log('');
  print(rows);
  for (const { label, error } of failed) console.log(`FAILED, no figures: ${label}: ${error}`);
  for (const { label, server, stopped } of servers) printComplaints(label, server, stopped);
}

/** The floor row and the loaded row of one server. */
async function measureServer(label, env, dsn, servers) {
  const server = await startServer({ env });
  const loads = [];
  const health = () => probe(`${server.origin}/health`);
  const report = clientReportEnvelope(dsn);
  const tunnel = () =>
    probe(`${server.origin}${TUNNEL_PATH}`, {
      method: 'POST',
      body: report,
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
  // Half an interval apart: one new connection every 100 ms, never two at once.
  const probeBoth = (durationMs) =>
    Promise.all([
      probeEvery(health, { durationMs }),
      probeEvery(tunnel, { durationMs, offsetMs: PROBE_INTERVAL_MS / 2 }),
    ]);
  const tunnelLoad = (durationS) => {
    const load = startLoad({
      url: `${server.origin}${TUNNEL_PATH}`,
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: errorEnvelope(dsn),
      connections: TUNNEL_CONNECTIONS,
      durationS,
    });
    loads.push(load.child);
    return load.result;
  };
  try {
    // The deployed state: pages rendered, so Start's AsyncLocalStorage is on (bench/tunnel.mjs).
    await renderPages(server.origin);
    const [floorHealth, floorTunnel] = await probeBoth(FLOOR_MS);
    const floorThroughput = await tunnelLoad(FLOOR_TUNNEL_LOAD_S);

    const pages = startLoad({
      url: `${server.origin}/about`,
      headers: { 'user-agent': BROWSER_UA },
      connections: PAGE_CONNECTIONS,
      durationS: PAGE_LOAD_S,
    });
    loads.push(pages.child);
    await sleep(RAMP_MS);
    const [loadedHealth, loadedTunnel] = await probeBoth(PROBE_MS);
    const loadedThroughput = await tunnelLoad(TUNNEL_LOAD_S);
    const about = await pages.result;
    return [
      {
        label,
        load: 'none',
        health: summarise(floorHealth),
        tunnel: summarise(floorTunnel),
        throughput: floorThroughput,
      },
      {
        label,
        load: `/about -c${PAGE_CONNECTIONS}`,
        health: summarise(loadedHealth),
        tunnel: summarise(loadedTunnel),
        throughput: loadedThroughput,
        about,
      },
    ];
  } finally {
    for (const child of loads) await stop(child);
    servers.push({ label, server, stopped: await server.stop() });
  }
}

const met = (row) =>
  row.health.p99 < GOAL_MS && row.tunnel.p99 < GOAL_MS && row.health.allOk && row.tunnel.allOk;

function print(rows) {
  const round = (value) => (Number.isNaN(value) ? '-' : Math.round(value));
  console.log('Probes (ms: p50 / p99 / max over every probe; a failed probe counts at its time):');
  printTable(
    [
      { title: 'server' },
      { title: 'load' },
      { title: '/health ms', right: true },
      { title: '/health answers' },
      { title: '/monitoring ms', right: true },
      { title: '/monitoring answers' },
      { title: 'goal' },
    ],
    rows.map((row) => [
      row.label,
      row.load,
      latencies(row.health),
      row.health.answers,
      latencies(row.tunnel),
      row.tunnel.answers,
      row.about ? (met(row) ? 'met' : 'NOT met') : '(floor)',
    ]),
  );
  console.log('\nThroughput (tunnel: -c8 of ~6 KB error envelopes; p99 of 2xx answers):');
  printTable(
    [
      { title: 'server' },
      { title: 'load' },
      { title: '/about req/s', right: true },
      { title: '2xx', right: true },
      { title: '503 shed', right: true },
      { title: 'other', right: true },
      { title: 'p99 ms', right: true },
      { title: 'tunnel req/s', right: true },
      { title: '2xx', right: true },
      { title: 'other', right: true },
      { title: 'p99 ms', right: true },
    ],
    rows.map(({ label, load, about, throughput }) => [
      label,
      load,
      about && round(about.rps),
      about?.ok,
      about?.shed,
      about?.other,
      about && round(about.p99),
      round(throughput.rps),
      throughput.ok,
      throughput.shed + throughput.other,
      throughput.p99.toFixed(1),
    ]),
  );
  console.log(
    `\nGoal: "/health and /monitoring p99 < ${GOAL_MS} ms while /about is under -c${PAGE_CONNECTIONS}" (and every probe answered 2xx).`,
  );
  for (const row of rows.filter((candidate) => candidate.about)) {
    const why = met(row)
      ? ''
      : ` (/health p99 ${round(row.health.p99)} ms, /monitoring p99 ${round(row.tunnel.p99)} ms)`;
    console.log(`  ${row.label}: ${met(row) ? 'met' : 'NOT met'}${why}`);
  }
  console.log(
    `  With ${Math.round(PROBE_MS / PROBE_INTERVAL_MS)} probes a row, p99 is the slowest probe.`,
  );
}
