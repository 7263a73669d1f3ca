// npm run bench:workers: where two workers' CPU goes, beside one worker, in one run. Our build
// in local inbox mode twice, each a child on 127.0.0.1: WEB_CONCURRENCY=1 (one plain process) and
// WEB_CONCURRENCY=2 (the cluster's primary and two workers). GET /about with a browser
// User-Agent, 16 kept-alive connections (the load of bench/pages/load.mjs), the two servers in
// turn, BENCH_ROUNDS rounds after a warm-up. Each round prints, from /proc, the CPU time per
// request of the whole server, of the primary and of each worker, and each worker's share of the
// answers (its share of the bytes the workers wrote: every /about answer is the same size); with
// autocannon, the load generator's own CPU per request too. Figures, not assertions; compare
// within one run (docs/performance.md#workers-issue-27).
// Settings: BENCH_DURATION (s, 8), BENCH_ROUNDS (4), BENCH_WARMUP (s, 2), BENCH_LOAD_TOOL, as
// bench:pages.
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { printTable } from './adversarial/table.mjs';
import { loadTool, runLoad } from './pages/load.mjs';
import { cpuSecondsOfEach } from './pages/process-cpu.mjs';
import { stopAll } from './pages/processes.mjs';
import { startOurs } from './pages/servers.mjs';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 2);
const CONNECTIONS = 16;
const PATH = '/about';

for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));

const busy = () =>
  `load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores`;

/** Bytes a process has written so far (sockets included), or 0 where /proc cannot tell. */
function bytesWrittenBy(pid) {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Whether the kernel shares CPU between sessions before processes (autogroup): then every process
 * this bench starts shares one session's slot against each other session busy on the machine, and
 * two workers get no more CPU than one while another session keeps the cores busy.
 */
function autogroupOn() {
  try {
    return readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

/** One round on `server`: its figures, and each of its processes' CPU and bytes written. */
async function measureRound(server) {
  const before = cpuSecondsOfEach(server.pid) ?? [];
  const bytesBefore = new Map(before.map(({ pid }) => [pid, bytesWrittenBy(pid)]));
  const figures = await runLoad({
    url: `${server.origin}${PATH}`,
    connections: CONNECTIONS,
    durationS: DURATION_S,
  });
  const after = cpuSecondsOfEach(server.pid) ?? [];
  const processes = after.map(({ pid, seconds }) => ({
    pid,
    seconds: seconds - (before.find((each) => each.pid === pid)?.seconds ?? seconds),
    bytes: bytesWrittenBy(pid) - (bytesBefore.get(pid) ?? 0),
  }));
  return { figures, processes };
}

const perRequest = (seconds, requests) =>
  requests > 0 ? ((seconds * 1000) / requests).toFixed(2) : '-';

/** Table rows for one server's round: the whole server, then (for a cluster) each process. */
function rowsOf(name, round, { figures, processes }) {
  const total = processes.reduce((sum, each) => sum + each.seconds, 0);
  const loadCpu = figures.cpuMs === undefined ? '-' : (figures.cpuMs / figures.requests).toFixed(2);
  const rows = [
    [
      name,
      round,
      Math.round(figures.rps),
      figures.p99.toFixed(1),
      perRequest(total, figures.requests),
      loadCpu,
      '',
    ],
  ];
  if (processes.length < 2) return rows;
  const [primary, ...workers] = processes;
  const written = workers.reduce((sum, each) => sum + each.bytes, 0);
  rows.push(['  primary', round, '', '', perRequest(primary.seconds, figures.requests), '', '']);
  workers.forEach((worker, index) => {
    const share = written > 0 ? `${Math.round((100 * worker.bytes) / written)}%` : '-';
    rows.push([
      `  worker ${index + 1}`,
      round,
      '',
      '',
      perRequest(worker.seconds, figures.requests),
      '',
      share,
    ]);
  });
  return rows;
}

async function main() {
  const tool = loadTool();
  console.log(`Workers bench, ${busy()}.`);
  if (autogroupOn() && loadavg()[0] > availableParallelism()) {
    console.log(
      'Note: the kernel shares CPU between sessions first (sched_autogroup_enabled) and the machine is busier than its cores: two workers then get no more CPU than one, and their figures say little.',
    );
  }
  console.log(
    `\n${tool.name} (${tool.why}), ${CONNECTIONS} kept-alive connections, GET ${PATH} with a browser User-Agent, ${DURATION_S} s per server and round after ${WARMUP_S} s of warm-up, the servers in turn. LOAD_SHEDDING_LAG_MS=0, local inbox mode.\n`,
  );
  const one = await startOurs({ name: 'one worker', tracesSampleRate: '0', workers: '1' });
  const two = await startOurs({ name: 'two workers', tracesSampleRate: '0', workers: '2' });
  const servers = [one, two];
  for (const server of servers) {
    await runLoad({
      url: `${server.origin}${PATH}`,
      connections: CONNECTIONS,
      durationS: WARMUP_S,
    });
  }
  const totals = new Map(servers.map((server) => [server.name, { seconds: 0, requests: 0 }]));
  const rows = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const server of servers) {
      const measured = await measureRound(server);
      rows.push(...rowsOf(server.name, round, measured));
      const total = totals.get(server.name);
      total.seconds += measured.processes.reduce((sum, each) => sum + each.seconds, 0);
      total.requests += measured.figures.requests;
    }
  }
  printTable(
    [
      { title: 'server' },
      { title: 'round', right: true },
      { title: 'req/s', right: true },
      { title: 'p99 ms', right: true },
      { title: 'CPU ms/req', right: true },
      { title: 'load generator CPU ms/req', right: true },
      { title: 'share of answers', right: true },
    ],
    rows,
  );
  const [oneTotal, twoTotal] = servers.map((server) => totals.get(server.name));
  const oneMs = (oneTotal.seconds * 1000) / oneTotal.requests;
  const twoMs = (twoTotal.seconds * 1000) / twoTotal.requests;
  console.log(
    `\nOver every round: one worker ${oneMs.toFixed(2)} ms of CPU per request, two workers ${twoMs.toFixed(2)} (${(twoMs / oneMs).toFixed(2)} x); req/s ${(twoTotal.requests / oneTotal.requests).toFixed(2)} x.`,
  );
  console.log(
    "CPU ms/req: user and system time from /proc, every thread, over the requests the whole server answered in the round (a worker's row too: the rows of a cluster add up to its total). Share of answers: each worker's share of the bytes the workers wrote.",
  );
  console.log(`\nDone, ${busy()}.`);
}

try {
  await main();
} finally {
  await stopAll();
}
