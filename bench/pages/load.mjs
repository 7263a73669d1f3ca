// The load of npm run bench:pages: GET one URL with a browser User-Agent (isbot takes curl's,
// wrk's and autocannon's own for bots, and Start does not stream to bots), from a process of
// its own so that it never shares an event loop with a server. wrk when it is installed (one
// thread, a C event loop: it needs far less CPU per request than autocannon on a 2-core
// machine), autocannon (a devDependency) otherwise.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nextMessage } from '../adversarial/children.mjs';
import { forkTracked, spawnTracked } from './processes.mjs';
import { parseWrkOutput } from './wrk-output.mjs';

export const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
const WRK = '/usr/bin/wrk';
const AUTOCANNON_CHILD = fileURLToPath(new URL('./autocannon-child.mjs', import.meta.url));

/** Which load generator runs, and why, for the report. */
export function loadTool() {
  if (process.env.BENCH_LOAD_TOOL === 'autocannon') {
    return { name: 'autocannon', why: 'BENCH_LOAD_TOOL=autocannon' };
  }
  return existsSync(WRK)
    ? { name: 'wrk', why: WRK }
    : { name: 'autocannon', why: `the fallback: no ${WRK}` };
}

/**
 * Resolves with { rps, p50, p99, requests, failed } (latencies in ms), and with autocannon its own
 * CPU time, `cpuMs`.
 */
export function runLoad({ url, connections, durationS }) {
  return loadTool().name === 'wrk'
    ? runWrk({ url, connections, durationS })
    : runAutocannon({ url, connections, durationS });
}

function runWrk({ url, connections, durationS }) {
  const args = [
    '-t1',
    `-c${connections}`,
    `-d${durationS}s`,
    // wrk's default 2 s would drop the slowest answers from the percentiles.
    '--timeout',
    '10s',
    '--latency',
    '-H',
    `User-Agent: ${BROWSER_UA}`,
    url,
  ];
  const child = spawnTracked(WRK, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code !== 0) reject(new Error(`wrk exited (${signal ?? code}):\n${output}`));
      else {
        try {
          resolve(parseWrkOutput(output));
        } catch (error) {
          reject(error);
        }
      }
    });
  });
}

async function runAutocannon(options) {
  const child = forkTracked(AUTOCANNON_CHILD, [
    JSON.stringify({ ...options, userAgent: BROWSER_UA }),
  ]);
  // autocannon's own request timeout is 10 s: the load ends within its duration and that.
  return nextMessage(child, (options.durationS + 30) * 1000);
}
