// npm run bench:pages: what a page costs with Start, with our monitoring and without, side by
// side in one run (issue 12). Five servers, each in its own process on 127.0.0.1:
//   minimal Start 1.120   bench/pages/minimal-start, built here from the same node_modules
//   bare React 19         renderToPipeableStream on node:http, the same markup: the limit
//   ours (inbox)          the built server entry, SENTRY_DSN unset (local inbox mode), the page
//                         cache off (PAGE_CACHE_MAX_MB=0): every request is rendered
//   ours (Sentry)         the same build, SENTRY_DSN set to a fake ingest in this process
//   ours (inbox), cached  ours (inbox) with the page cache on: /about and / come from it after
//                         their first render (decision 1300)
//   ours (traced)         as ours (Sentry), every page view traced: for its JavaScript only
//   ours (inbox), 2 workers  ours (inbox) with WEB_CONCURRENCY=2: for its throughput only
// Every server but the last is one process (WEB_CONCURRENCY=1): "one worker" in issue 35's words.
// Ours (inbox) and ours (Sentry) trace no page view (SENTRY_TRACES_SAMPLE_RATE=0), the case of
// most visitors: a traced one also loads the SDK and tracing (decision 0950).
// 1. Throughput: GET /about and / with a browser User-Agent, one load at a time (wrk, else
//    autocannon, in a process of its own), after a warm-up; the median of BENCH_ROUNDS rounds.
// 2. The JavaScript Chromium loads for /about: first visit, before hydration, second visit.
// 3. Issue 12's targets and issue 22's (`/` against the minimal app), and issue 27's (two
//    workers against one), PASS or FAIL. Figures, not assertions: see docs/performance.md.
// Settings: BENCH_DURATION (s, 8), BENCH_CONNECTIONS (16), BENCH_ROUNDS (3), BENCH_WARMUP (s, 12),
// BENCH_LEAD_IN (s, 2), BENCH_LOAD_TOOL=autocannon to use the fallback even where wrk is installed.
import { availableParallelism, loadavg } from 'node:os';
import { ensureBuild } from '../scripts/ensure-build.mjs';
import { launchBrowser, measurePageScripts } from './pages/browser-bytes.mjs';
import { ensureMinimalBuild } from './pages/build-minimal.mjs';
import { startFakeIngest } from './pages/fake-ingest.mjs';
import { BROWSER_UA, loadTool, runLoad } from './pages/load.mjs';
import { cpuSecondsOf } from './pages/process-cpu.mjs';
import { stopAll } from './pages/processes.mjs';
import { printBytesTable, printLoadTable, printRounds, printVerdicts } from './pages/report.mjs';
import { startBareReact, startMinimalStart, startOurs } from './pages/servers.mjs';
import { cacheVerdicts, verdicts, workerVerdicts } from './pages/targets.mjs';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
// Three: on a shared 2-core machine one round in three is often disturbed (decision 0810).
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// V8 goes on optimising for about 10 s of load after a start: in 5 s windows of load from the
// start, ours compiled 508, 242, 32 and 16 functions, the minimal app 545, 200, 29 and 9. With
// 2 s, the first round measured the compiler of whichever had more code (decision 1330).
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 12);
// Unmeasured load just before each measured run: a server that sat idle while the others were
// measured starts cold: the order of the rounds alone moved one server's share of another
// between 0.75x and 1.31x.
const LEAD_IN_S = Number(process.env.BENCH_LEAD_IN ?? 2);
const PATHS = ['/about', '/'];

// Killed by a signal, 'exit' handlers do not run: exit instead, and processes.mjs kills the
// children (Playwright closes its browser on exit).
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));

const busy = () =>
  `load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores`;

/** The page's <main> as served: the servers must render the same markup to be compared. */
async function mainOf(origin, path) {
  const response = await fetch(`${origin}${path}`, {
    headers: { 'user-agent': BROWSER_UA },
    signal: AbortSignal.timeout(15_000),
  });
  const html = await response.text();
  if (response.status !== 200) throw new Error(`GET ${origin}${path} answered ${response.status}`);
  return /<main[\s\S]*?<\/main>/.exec(html)?.[0] ?? '';
}

async function checkSameMarkup(servers) {
  const [reference, ...others] = servers;
  const expected = await mainOf(reference.origin, '/about');
  for (const server of others) {
    if ((await mainOf(server.origin, '/about')) !== expected) {
      console.log(`Note: ${server.name}'s /about <main> differs from ${reference.name}'s.`);
    }
  }
  // Every page once, so that no measured request is a server's first.
  for (const server of servers) await mainOf(server.origin, '/');
}

/** The server's CPU time over all rounds divided by the requests it answered in them. */
function cpuMsPerRequest(rounds) {
  if (rounds.some((round) => round.cpuSeconds === undefined)) return undefined;
  const seconds = rounds.reduce((sum, round) => sum + round.cpuSeconds, 0);
  const requests = rounds.reduce((sum, round) => sum + round.requests, 0);
  return requests > 0 ? (seconds * 1000) / requests : undefined;
}

/** The round with the median req/s: one noisy round does not decide. */
function medianRound(rounds) {
  const sorted = [...rounds].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor(sorted.length / 2)];
}

async function measureLoad(servers) {
  const tool = loadTool();
  console.log(
    `## Server-side rendering under load\n\n${tool.name} (${tool.why}), 1 thread, ${CONNECTIONS} connections, ${DURATION_S} s per server and path after ${WARMUP_S} s of warm-up and, before each, ${LEAD_IN_S} s unmeasured, ${ROUNDS} round(s), browser User-Agent, one load at a time. Our server with LOAD_SHEDDING_LAG_MS=0 (load shedding off), NODE_ENV=production. Every server is one process (one worker: WEB_CONCURRENCY=1) but the 2-worker row; the minimal Start app is bench/pages/minimal-start, one process. Ours (inbox) and ours (Sentry) render every request (PAGE_CACHE_MAX_MB=0); ours (inbox), cached answers /about and / from its page cache after their first render.\n`,
  );
  for (const server of servers) {
    for (const path of PATHS) {
      await runLoad({
        url: `${server.origin}${path}`,
        connections: CONNECTIONS,
        durationS: WARMUP_S,
      });
    }
  }
  const runs = new Map(
    servers.flatMap((server) => PATHS.map((path) => [`${server.name} ${path}`, []])),
  );
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const path of PATHS) {
      for (const server of servers) {
        if (LEAD_IN_S > 0) {
          await runLoad({
            url: `${server.origin}${path}`,
            connections: CONNECTIONS,
            durationS: LEAD_IN_S,
          });
        }
        const cpuBefore = cpuSecondsOf(server.pid);
        const figures = await runLoad({
          url: `${server.origin}${path}`,
          connections: CONNECTIONS,
          durationS: DURATION_S,
        });
        const cpuAfter = cpuSecondsOf(server.pid);
        runs.get(`${server.name} ${path}`).push({
          ...figures,
          cpuSeconds: cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
        });
      }
    }
  }
  const [minimal] = servers;
  const rows = PATHS.flatMap((path) =>
    servers.map((server) => ({
      server: server.name,
      path,
      rounds: runs.get(`${server.name} ${path}`),
      figures: medianRound(runs.get(`${server.name} ${path}`)),
      minimal: medianRound(runs.get(`${minimal.name} ${path}`)),
      cpuMsPerRequest: cpuMsPerRequest(runs.get(`${server.name} ${path}`)),
      minimalCpuMsPerRequest: cpuMsPerRequest(runs.get(`${minimal.name} ${path}`)),
    })),
  );
  printLoadTable(rows);
  if (ROUNDS > 1) {
    console.log(`\n(median round of ${ROUNDS} shown above; each round:)`);
    printRounds(rows);
  }
  console.log(
    "\nx minimal: this row divided by the minimal Start app on the same path. failed: non-2xx/3xx answers and socket errors. CPU ms/req: the server process's CPU time (all threads, user and system) over every round divided by the requests it answered; minimal CPU / this: the share of the minimal app's throughput that CPU cost allows, steadier than req/s on a shared machine.",
  );
  return rows;
}

async function measureBytes(servers) {
  console.log(
    `\n## JavaScript for a first visit to /about (Chromium, DevTools protocol, KB = 1,000 bytes)\n`,
  );
  const columns = [];
  let browser;
  try {
    browser = await launchBrowser();
  } catch (error) {
    // The load figures above are still worth having: the targets say what was not measured.
    console.log(
      `Chromium did not start: ${error instanceof Error ? error.message.split('\n')[0] : error}`,
    );
    process.exitCode = 1;
    return servers.map((server) => ({ name: server.name, bytes: undefined }));
  }
  try {
    for (const server of servers) {
      try {
        columns.push({
          name: server.name,
          bytes: await measurePageScripts(browser, `${server.origin}/about`),
        });
      } catch (error) {
        console.log(`${server.name}: ${error instanceof Error ? error.message : error}`);
        process.exitCode = 1;
        columns.push({ name: server.name, bytes: undefined });
      }
    }
  } finally {
    await browser.close();
  }
  printBytesTable(columns);
  const unhydrated = columns.filter((column) => column.bytes && !column.bytes.hydrated);
  for (const column of unhydrated)
    console.log(`Note: ${column.name} never hydrated <main> within 30 s.`);
  console.log(`
first visit: every script up to the load event and network idle, in a fresh browser context.
raw: decoded bodies; gzip -9: each script gzipped at level 9, summed; on the wire: response
headers and bodies as sent (CDP encodedDataLength), in the server's own Content-Encoding.
before hydration: the scripts that had finished loading when React claimed <main> during
hydration (its fiber key on the element; an approximation of "interactive").
second visit: a new tab in the same browser context; script requests that went to the server
(revalidations included) and their bytes. Scripts without max-age or Expires may still come
from the cache (heuristic freshness, a tenth of their age since Last-Modified): the target
counts a second visit as free only when every script has explicit freshness.`);
  return columns;
}

async function main() {
  ensureBuild();
  ensureMinimalBuild();
  console.log(`Pages bench, ${busy()}.\n`);
  const ingest = await startFakeIngest();
  try {
    // One at a time: four servers starting at once on two cores would time each other out.
    const minimal = await startMinimalStart();
    const bare = await startBareReact();
    // Page views not traced: what 9 in 10 visitors get with Sentry's default rate of 0.1.
    const inbox = await startOurs({ name: 'ours (inbox)', tracesSampleRate: '0' });
    const sentry = await startOurs({
      name: 'ours (Sentry)',
      dsn: ingest.dsn,
      tracesSampleRate: '0',
    });
    const cached = await startOurs({
      name: 'ours (inbox), cached',
      tracesSampleRate: '0',
      pageCache: true,
    });
    const twoWorkers = await startOurs({
      name: 'ours (inbox), 2 workers',
      tracesSampleRate: '0',
      workers: '2',
    });
    await checkSameMarkup([minimal, bare, inbox, sentry, cached, twoWorkers]);

    const load = await measureLoad([minimal, bare, inbox, sentry, cached, twoWorkers]);
    // For its JavaScript only: a traced page view also loads the SDK and tracing.
    const traced = await startOurs({
      name: 'ours (traced)',
      dsn: ingest.dsn,
      tracesSampleRate: '1',
    });
    const bytes = await measureBytes([minimal, inbox, sentry, traced]);
    console.log(
      `\nThe fake Sentry ingest received ${ingest.envelopes()} envelope(s) from ours (Sentry).`,
    );

    console.log('\n## Issue 12, 22, 27 and 35 targets (this run)\n');
    const figuresOf = (name) => ({
      about: load.find((row) => row.server === name && row.path === '/about')?.figures,
      home: load.find((row) => row.server === name && row.path === '/')?.figures,
      bytes: bytes.find((column) => column.name === name)?.bytes,
    });
    const aboutWithCpu = (name) => {
      const row = load.find((each) => each.server === name && each.path === '/about');
      return row && { ...row.figures, cpuMsPerRequest: row.cpuMsPerRequest };
    };
    printVerdicts(
      [inbox, sentry].map((server) => ({
        name: server.name,
        rows: verdicts(figuresOf(server.name), figuresOf(minimal.name)),
      })),
    );
    printVerdicts([
      {
        name: cached.name,
        rows: cacheVerdicts(aboutWithCpu(cached.name), aboutWithCpu(minimal.name)),
      },
      {
        name: twoWorkers.name,
        rows: workerVerdicts(
          aboutWithCpu(twoWorkers.name),
          aboutWithCpu(inbox.name),
          availableParallelism(),
        ),
      },
    ]);
    const tracedWire = bytes.find((column) => column.name === traced.name)?.bytes?.first.wire;
    console.log(`
The targets hold for page views that are not traced (SENTRY_TRACES_SAMPLE_RATE=0 above). A
traced page view (a share of them: SENTRY_TRACES_SAMPLE_RATE, 0.1 by default with Sentry, 1 in
local inbox mode) also loads the SDK and tracing after hydration: ${tracedWire === undefined ? 'not measured' : `${(tracedWire / 1000).toFixed(1)} KB`} on the wire
for its first visit ('ours (traced)'). Decision 0950.`);
    console.log(
      `\nDone, ${busy()}. Other work on the machine moves every figure: compare within one run.`,
    );
  } finally {
    await stopAll();
    await ingest.close();
  }
}

await main();
