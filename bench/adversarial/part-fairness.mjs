// Part 4: fairness, the findings of issue 22 replayed against the build. Attackers hold what the
// server shares (connections, the tunnel's receive buffer, its connections to Sentry) from
// addresses of their own (127.0.x.y: each one client to the server), reconnecting whenever
// the server closes them; meanwhile a newcomer on 127.0.0.1 asks for /health and /about, or
// sends real reports, and we count what it got.
//   slowloris  12 addresses × 1,000 connections with headers that never end (the server's cap
//              is 10,000 at a descriptor limit of 20,000): the newcomer's /health and /about;
//   held budget  70 uploads of 1 MiB that stall a byte short (local inbox mode), from one
//              address and from 35: real reports of ~6 KB, and what the uploads were answered;
//   Sentry pool  900 trickled bodies from 100 addresses (Sentry mode, a fake ingest): the
//              server's connections to the ingest at most, and real reports meanwhile;
//   header lines  12 addresses × 150 tunnel posts whose header line never ends (issue 32), at a
//              cap of 1,612 connections: the newcomer's /health and /about;
//   sign-in    3 addresses × 8 server-function calls whose bodies trickle (issue 32): the
//              operator's sign-in with the right token, every 500 ms.
// BENCH_SERVER_ENTRY=<an older .output>/server/index.mjs gives the "before" figures.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorEnvelope } from '../envelopes.mjs';
import { descriptorLimits, forkNode, nextMessage, sleep, stop } from './children.mjs';
import { probe, probeEvery } from './probe.mjs';
import { firstLine, printComplaints, startServer } from './server.mjs';
import { startSlowClients } from './slow-clients.mjs';
import { printTable } from './table.mjs';
import { makeTempDir, removeTempDir } from './temp-dirs.mjs';

const TUNNEL_BENCH = fileURLToPath(new URL('../tunnel.mjs', import.meta.url));
const LOCAL_DSN = 'http://localinbox@localhost/1';
const TUNNEL_PATH = '/monitoring?o=0&p=1';
const FDS = 20_000;
const addresses = (prefix, count) => Array.from({ length: count }, (_, i) => `${prefix}.${i + 1}`);

export async function fairnessPart() {
  console.log(
    `Part 4. Fairness: attackers on addresses of their own (127.x.y.z) reconnect whenever closed;
a newcomer on 127.0.0.1 asks meanwhile, each request on a new connection.\n`,
  );
  const { hard } = descriptorLimits();
  if (hard < FDS) {
    console.log(`  (hard descriptor limit ${hard}, under ${FDS}: the slowloris row is skipped)`);
  }
  const root = makeTempDir('adversarial-fairness-');
  const rows = [];
  const complaints = [];
  const scenarios = [
    ...(hard >= FDS ? [['slowloris, 12 addresses × 1,000 slow connections', slowloris]] : []),
    ['held budget, 70 stalled 1 MiB uploads from 1 address', (s) => heldBudget(s, 1)],
    ['held budget, 70 stalled 1 MiB uploads from 35 addresses', (s) => heldBudget(s, 35)],
    ['Sentry pool, 900 trickled bodies from 100 addresses', sentryPool],
    ['header lines, 12 addresses × 150 tunnel posts never ending (cap 1,612)', headerLines],
    ['sign-in, 3 addresses × 8 trickled server-function bodies', signIn],
  ];
  try {
    for (const [index, [label, run]] of scenarios.entries()) {
      console.log(`  measuring: ${label}…`);
      try {
        rows.push({ label, ...(await run({ dir: join(root, String(index)), complaints, label })) });
      } catch (error) {
        rows.push({ label, newcomer: `FAILED: ${firstLine(error)}` });
        process.exitCode = 1;
      }
    }
  } finally {
    removeTempDir(root);
  }
  console.log('');
  printTable(
    [
      { title: 'scenario' },
      { title: 'newcomer / real reports' },
      { title: 'attackers were answered' },
      { title: 'note' },
    ],
    rows.map((row) => [row.label, row.newcomer, row.attackers, row.note ?? '']),
  );
  for (const { label, server, stopped } of complaints) printComplaints(label, server, stopped);
}

/** "200×22 ECONNRESET×2 (of 24)". */
function answers(results) {
  const counts = new Map();
  for (const { status } of results) counts.set(status, (counts.get(status) ?? 0) + 1);
  const text = [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  return `${text} (of ${results.length})`;
}

/** "429×68 408×2; 140 reconnects": what the server did to the attackers. */
function attackerAnswers({ answers: byStatus, reopened }) {
  const text = Object.entries(byStatus)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  return `${text || 'no answer'}; ${reopened} reconnect(s)`;
}

/** Runs `measure` against a server with `env`, under `attack` (slow-clients.mjs options). */
async function underAttack({ env, label, complaints, attack, measure, fdLimit }) {
  const server = await startServer({ env, fdLimit });
  let clients;
  try {
    clients = startSlowClients({ port: server.port, fdLimit, reconnect: true, ...attack });
    const { opened } = await nextMessage(clients, 120_000, (message) => message.opened);
    const measured = await measure(server, opened);
    clients.send('close');
    const { closed } = await nextMessage(clients, 30_000, (message) => message.closed);
    return { ...measured, attackers: attackerAnswers(closed) };
  } finally {
    if (clients) await stop(clients);
    complaints.push({ label, server, stopped: await server.stop() });
  }
}

function slowloris({ dir, complaints, label }) {
  return underAttack({
    env: { SENTRY_DSN: '', MONITORING_INBOX_DIR: dir },
    fdLimit: FDS,
    label,
    complaints,
    attack: { kind: 'headers', count: 12_000, from: addresses('127.0.1', 12) },
    measure: async (server, opened) => {
      const results = await probeEvery(
        (() => {
          let n = 0;
          return () => probe(`${server.origin}${n++ % 2 === 0 ? '/health' : '/about'}`);
        })(),
        { durationMs: 24 * 250, intervalMs: 250 },
      );
      return {
        newcomer: `/health, /about: ${answers(results)}`,
        note: `${opened.held} held of ${opened.connected} connected`,
      };
    },
  });
}

/**
 * At a descriptor limit of 2,048 (a cap of 1,612 connections): the server's cap of 10,000 would
 * take 12,000 posts, most of them refused and reopened every second once each client holds its
 * 8, and that churn kept the attacking process from ever reporting.
 */
function headerLines({ dir, complaints, label }) {
  return underAttack({
    env: { SENTRY_DSN: '', MONITORING_INBOX_DIR: dir },
    fdLimit: 2048,
    label,
    complaints,
    attack: { kind: 'header-line', count: 1_800, from: addresses('127.0.5', 12) },
    measure: async (server, opened) => {
      const results = await probeEvery(
        (() => {
          let n = 0;
          return () => probe(`${server.origin}${n++ % 2 === 0 ? '/health' : '/about'}`);
        })(),
        { durationMs: 24 * 250, intervalMs: 250 },
      );
      return {
        newcomer: `/health, /about: ${answers(results)}`,
        note: `${opened.held} held of ${opened.connected} connected`,
      };
    },
  });
}

const TOKEN = 'the-operators-token-for-the-bench';
// tests/support/server-function-paths.ts's SIGN_IN_TO_INBOX_FN.
const SIGN_IN_FN =
  '/_server/app_server_inbox_inbox_functions_ts--signInToInbox_createServerFn_handler';

function signIn({ dir, complaints, label }) {
  return underAttack({
    env: {
      SENTRY_DSN: '',
      MONITORING_INBOX_DIR: dir,
      MONITORING_INBOX_TOKEN: TOKEN,
      MONITORING_INBOX_TRUST_LOOPBACK: 'false',
    },
    label,
    complaints,
    attack: { kind: 'server-function', count: 24, from: addresses('127.0.6', 3) },
    measure: async (server) => {
      const results = await probeEvery(
        () =>
          probe(`${server.origin}${SIGN_IN_FN}?createServerFn`, {
            method: 'POST',
            body: `token=${TOKEN}`,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          }),
        { durationMs: 10 * 500, intervalMs: 500 },
      );
      return { newcomer: `operator's sign-in (303 = signed in): ${answers(results)}` };
    },
  });
}

function heldBudget({ dir, complaints, label }, addressCount) {
  return underAttack({
    env: { SENTRY_DSN: '', MONITORING_INBOX_DIR: dir },
    label,
    complaints,
    attack: { kind: 'upload', count: 70, from: addresses('127.0.2', addressCount) },
    measure: async (server) => ({
      newcomer: `reports: ${answers(await realReports(server.origin, LOCAL_DSN))}`,
    }),
  });
}

/** 111 real reports, one every 100 ms, as the finding sent them. */
function realReports(origin, dsn) {
  const body = errorEnvelope(dsn);
  return probeEvery(
    () =>
      probe(`${origin}${TUNNEL_PATH}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
      }),
    { durationMs: 111 * 100, intervalMs: 100 },
  );
}

async function sentryPool({ complaints, label }) {
  const ingest = forkNode(TUNNEL_BENCH, ['ingest']);
  try {
    const { port: ingestPort } = await nextMessage(ingest, 10_000);
    const dsn = `http://benchkey@127.0.0.1:${ingestPort}/1`;
    return await underAttack({
      env: { SENTRY_DSN: dsn },
      label,
      complaints,
      attack: { kind: 'body', count: 900, from: addresses('127.0.3', 100), dsn },
      measure: async (server) => {
        let most = 0;
        const sampler = setInterval(() => {
          most = Math.max(most, connectionsTo(ingestPort));
        }, 200);
        try {
          const reports = await realReports(server.origin, dsn);
          return {
            newcomer: `reports: ${answers(reports)}`,
            note: `at most ${most} connections to Sentry`,
          };
        } finally {
          clearInterval(sampler);
          await sleep(0);
        }
      },
    });
  } finally {
    await stop(ingest);
  }
}

/** Established TCP connections to 127.0.0.1:`port` on this machine (/proc/net/tcp). */
function connectionsTo(port) {
  try {
    const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
    return readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .slice(1)
      .filter((line) => {
        const [, , remote, state] = line.trim().split(/\s+/);
        return state === '01' && remote?.endsWith(hex);
      }).length;
  } catch {
    return Number.NaN;
  }
}
