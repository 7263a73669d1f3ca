// Part 2: the server's memory while 2,000 slow clients hold connections (trickled tunnel bodies,
// headers that never end), whether /health answers meanwhile, and what is left once they close.
// Local inbox mode: there the tunnel holds each envelope whole until it is stored, the mode in
// which slow bodies cost memory (app/server/tunnel/client-limits.ts).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { descriptorLimits, nextMessage, rssMiB, sleep, stop } from './children.mjs';
import { latencies, probe, probeEvery, summarise } from './probe.mjs';
import { firstLine, printComplaints, startServer } from './server.mjs';
import { startSlowClients } from './slow-clients.mjs';
import { printTable } from './table.mjs';
import { makeTempDir, removeTempDir } from './temp-dirs.mjs';

const WANTED = 2_000;
// Descriptors beyond the clients' own: the server's files and the probes.
const SPARE_FDS = 1_024;
const RAISED_FDS = 65_536;
// Past the tunnel's body timeout and the headers timeout (10 s each), so that both are seen.
const HOLD_MS = 12_000;
const SCENARIOS = [
  { kind: 'body', what: 'trickled tunnel bodies', cap: '0' },
  { kind: 'headers', what: 'endless headers', cap: '0' },
  // From one address, the default cap refuses half of them, and the probe from that address too.
  { kind: 'body', what: 'trickled tunnel bodies', cap: undefined },
];

export async function slowClientsPart() {
  const { count, fdLimit, note } = clientCount();
  console.log(
    `Part 2. Server RSS (VmRSS) with ${count} slow clients from 127.0.0.1, local inbox mode: idle, peak over the
${HOLD_MS / 1000} s after they connect (each sends one byte a second), and 2 s after they are closed; /health probed
every 200 ms on a new connection meanwhile. ${note}
All the clients come from one address, so the per-client cap (MAX_CONNECTIONS_PER_CLIENT, 1,000) is off in
the first rows (${count} distinct clients) and at its default in the last.\n`,
  );
  const root = makeTempDir('adversarial-slow-');
  const rows = [];
  const complaints = [];
  try {
    for (const [index, scenario] of SCENARIOS.entries()) {
      const label = `${count} ${scenario.what}, cap ${scenario.cap === '0' ? 'off' : 'default'}`;
      console.log(`  measuring: ${label}…`);
      // One scenario failing (a server that would not start) leaves the others' figures.
      try {
        const server = await startServer({
          env: {
            SENTRY_DSN: '',
            MONITORING_INBOX_DIR: join(root, String(index)),
            MAX_CONNECTIONS_PER_CLIENT: scenario.cap,
          },
          fdLimit,
        });
        try {
          rows.push({ label, ...(await measure(server, scenario.kind, count, fdLimit)) });
        } finally {
          complaints.push({ label, server, stopped: await server.stop() });
        }
      } catch (error) {
        rows.push({ label, error: firstLine(error) });
        process.exitCode = 1;
      }
    }
  } finally {
    removeTempDir(root);
  }
  console.log('');
  print(rows);
  for (const { label, server, stopped } of complaints) printComplaints(label, server, stopped);
}

/**
 * How many clients there are descriptors for, and the limit to start the children with. Node
 * raises its own soft limit to the hard one at start, so only the hard limit counts; a shell's
 * `ulimit -n` may go past it where the system allows (root, in some containers), else fewer.
 */
function clientCount() {
  const needed = WANTED + SPARE_FDS;
  const { soft } = descriptorLimits();
  if (soft >= needed) return { count: WANTED, note: `(ulimit -n ${soft}: enough.)` };
  if (spawnSync('sh', ['-c', `ulimit -n ${RAISED_FDS}`]).status === 0) {
    return {
      count: WANTED,
      fdLimit: RAISED_FDS,
      note: `(ulimit -n ${soft}: raised to ${RAISED_FDS} for the server and the clients.)`,
    };
  }
  const count = Math.max(100, soft - SPARE_FDS);
  return {
    count,
    note: `(NOTE: ulimit -n is ${soft} and cannot be raised here: ${count} clients, not ${WANTED}.)`,
  };
}

async function measure(server, kind, count, fdLimit) {
  await sleep(1_000);
  const idle = rssMiB(server.pid);
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(server.pid) ?? 0);
  }, 200);
  const clients = startSlowClients({ port: server.port, kind, count, fdLimit });
  try {
    const { opened } = await nextMessage(clients, 60_000, (message) => message.opened);
    const health = await probeEvery(() => probe(`${server.origin}/health`), {
      durationMs: HOLD_MS,
    });
    clients.send('close');
    const { closed } = await nextMessage(clients, 15_000, (message) => message.closed);
    clearInterval(sampler);
    await sleep(2_000);
    return { opened, closed, idle, peak, after: rssMiB(server.pid), health: summarise(health) };
  } finally {
    clearInterval(sampler);
    await stop(clients);
  }
}

function print(allRows) {
  const rows = allRows.filter((row) => !row.error);
  const mib = (value) => (value === undefined ? '-' : Math.round(value));
  printTable(
    [
      { title: 'clients' },
      { title: 'connected', right: true },
      { title: 'held', right: true },
      { title: 'RSS idle', right: true },
      { title: 'peak', right: true },
      { title: 'after', right: true },
      { title: '/health ms', right: true },
      { title: 'slowest at', right: true },
      { title: '/health answers' },
      { title: 'server answered the clients' },
    ],
    rows.map(({ label, opened, closed, idle, peak, after, health }) => [
      label,
      opened.connected,
      opened.held,
      `${mib(idle)} MiB`,
      `${mib(peak)} MiB`,
      `${mib(after)} MiB`,
      latencies(health),
      `${(health.slowestAt / 1000).toFixed(1)} s`,
      health.answers,
      answered(closed),
    ]),
  );
  console.log(
    '\nheld: open 1 s after all connected. /health ms: p50 / p99 / max over every probe; slowest at: when\nthat probe started, from the first (the clients had all connected 1 s before it).',
  );
  for (const { label, error } of allRows.filter((row) => row.error)) {
    console.log(`FAILED, no figures: ${label}: ${error}`);
  }
}

/** "408×2000; closed 2000 after 10.0-10.9 s; 0 open at the end": closed by the server. */
function answered({ answers, closedByServer, firstClose, lastClose, stillOpen }) {
  const statuses = Object.entries(answers)
    .map(([status, number]) => `${status}×${number}`)
    .join(' ');
  const when =
    closedByServer > 0 ? ` after ${firstClose.toFixed(1)}-${lastClose.toFixed(1)} s` : '';
  return `${statuses || 'no answer'}; closed ${closedByServer}${when}; ${stillOpen} open at the end`;
}
