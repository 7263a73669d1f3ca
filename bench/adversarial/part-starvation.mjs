// Part 4: starvation (issue 22). /about probed with no other load, then while 16 callers loop
// on each public server function in turn, and while 16 calls of one trickle their bodies
// (before decision 1012 each held a call place): /about's p50, p99 and 503s side by side. Defaults (local inbox mode,
// load shedding at 100 ms), as an anonymous client meets the server. Against an older build
// (BENCH_SERVER_ENTRY) the same rows show the before: there getRuntimeHealth took `sampleMs`.
import { join } from 'node:path';
import { nextMessage, sleep, stop } from './children.mjs';
import { startLoad } from './load.mjs';
import { latencies, probe, probeEvery, summarise } from './probe.mjs';
import { BROWSER_UA, firstLine, printComplaints, renderPages, startServer } from './server.mjs';
import { startSlowClients } from './slow-clients.mjs';
import { printTable } from './table.mjs';
import { makeTempDir, removeTempDir } from './temp-dirs.mjs';

const CALLERS = 16;
const RAMP_MS = 1_000;
const PROBE_MS = 6_000;
const PROBE_EVERY_MS = 100;
// tests/support/server-function-paths.ts
const RUNTIME_HEALTH_FN =
  '/_server/app_server_app-info_functions_ts--getRuntimeHealth_createServerFn_handler';
const APP_OVERVIEW_FN =
  '/_server/app_server_app-info_functions_ts--getAppOverview_createServerFn_handler';
/** The goal: /about's p50 under the callers at most this multiple of its idle p50, no 503. */
const GOAL_P50_RATIO = 2;

/** A GET call as Start's client makes it: the payload in the query. */
const call = (path, data) =>
  `${path}?createServerFn&payload=${encodeURIComponent(JSON.stringify({ data, context: {} }))}`;

const SCENARIOS = [
  { callers: 'none (idle)' },
  // The input getRuntimeHealth once took: how long to watch the event loop, up to 2 s.
  {
    callers: `${CALLERS} x getRuntimeHealth({ sampleMs: 2000 })`,
    path: call(RUNTIME_HEALTH_FN, { sampleMs: 2000 }),
  },
  { callers: `${CALLERS} x getAppOverview()`, path: call(APP_OVERVIEW_FN, undefined) },
  { callers: `${CALLERS} x signInToInbox, body trickled`, slow: true },
];

export async function starvationPart() {
  console.log(
    `Part 4. Starvation: /about probed every ${PROBE_EVERY_MS} ms on a new connection for ${PROBE_MS / 1000} s (browser User-Agent), idle,
then while ${CALLERS} callers loop on each public server function (autocannon -c${CALLERS}, in a process of its own,
from ${RAMP_MS / 1000} s before), and while ${CALLERS} calls of the inbox sign-in trickle their bodies (Content-Length 60,000,
one byte a second). Local inbox mode, load shedding at its default.\n`,
  );
  const root = makeTempDir('adversarial-starvation-');
  const rows = [];
  let server;
  let stopped;
  try {
    server = await startServer({
      env: { SENTRY_DSN: '', MONITORING_INBOX_DIR: join(root, 'inbox') },
    });
    await renderPages(server.origin);
    for (const scenario of SCENARIOS) {
      console.log(`  measuring: ${scenario.callers}…`);
      try {
        rows.push({ ...scenario, ...(await measure(server, scenario)) });
      } catch (error) {
        rows.push({ ...scenario, error: firstLine(error) });
        process.exitCode = 1;
      }
    }
  } finally {
    if (server) stopped = await server.stop();
    removeTempDir(root);
  }
  console.log('');
  print(rows);
  if (server) printComplaints('starvation', server, stopped);
}

async function measure(server, { path, slow }) {
  const probeAbout = () =>
    probeEvery(() => probe(`${server.origin}/about`, { headers: { 'user-agent': BROWSER_UA } }), {
      durationMs: PROBE_MS,
      intervalMs: PROBE_EVERY_MS,
    });
  if (slow) {
    const clients = startSlowClients({
      port: server.port,
      kind: 'server-function',
      count: CALLERS,
    });
    try {
      await nextMessage(clients, 30_000, (message) => message.opened);
      const about = summarise(await probeAbout());
      clients.send('close');
      const { closed } = await nextMessage(clients, 15_000, (message) => message.closed);
      const answers = Object.entries(closed.answers)
        .map(([status, count]) => `${status}×${count}`)
        .join(' ');
      return {
        about,
        calls: `${closed.stillOpen} held to the end${answers ? `, ${answers}` : ''}`,
      };
    } finally {
      await stop(clients);
    }
  }
  if (!path) return { about: summarise(await probeAbout()) };
  const load = startLoad({
    url: `${server.origin}${path}`,
    connections: CALLERS,
    durationS: (RAMP_MS + PROBE_MS) / 1000 + 1,
  });
  try {
    await sleep(RAMP_MS);
    const about = summarise(await probeAbout());
    const figures = await load.result;
    return {
      about,
      calls: `${Math.round(figures.rps)} req/s, 2xx ${figures.ok}, 503 ${figures.shed}, other ${figures.other}`,
    };
  } finally {
    await stop(load.child);
  }
}

function print(rows) {
  const idle = rows.find((row) => !row.path && !row.slow && row.about)?.about;
  const ratio = (row) => (idle && row.about ? row.about.p50 / idle.p50 : Number.NaN);
  const shed = (row) => Number(/503×(\d+)/.exec(row.about?.answers ?? '')?.[1] ?? 0);
  const met = (row) => ratio(row) <= GOAL_P50_RATIO && row.about.allOk;
  console.log(
    '/about while callers loop (ms: p50 / p99 / max over every probe; a failed probe counts at its time):',
  );
  printTable(
    [
      { title: 'callers' },
      { title: '/about ms', right: true },
      { title: 'p50 x idle', right: true },
      { title: '503', right: true },
      { title: '/about answers' },
      { title: 'the callers got' },
      { title: 'goal' },
    ],
    rows.map((row) =>
      row.error
        ? [row.callers, '-', '-', '-', `FAILED: ${row.error}`, '-', '-']
        : [
            row.callers,
            latencies(row.about),
            row === rows[0] ? '1.00' : ratio(row).toFixed(2),
            shed(row),
            row.about.answers,
            row.calls ?? '-',
            row === rows[0] ? '(idle)' : met(row) ? 'met' : 'NOT met',
          ],
    ),
  );
  console.log(
    `\nGoal (issue 22): with ${CALLERS} callers of any public server function, /about's p50 at most ${GOAL_P50_RATIO}x its idle p50, and no /about 503.`,
  );
}
