// The four servers of npm run bench:pages, each a child process on 127.0.0.1 and a free port:
// the minimal Start app, the bare React server, and our build in both monitoring modes.
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../adversarial/temp-dirs.mjs';
import { MINIMAL_ENTRY, MINIMAL_ROOT } from './build-minimal.mjs';
import { spawnTracked } from './processes.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUR_ENTRY = `${ROOT}.output/server/index.mjs`;
const BARE_REACT = fileURLToPath(new URL('./bare-react.mjs', import.meta.url));
const START_TIMEOUT_MS = 30_000;

/** Settings the bench decides: an inherited value would change what is measured. */
const CONTROLLED =
  /^(SENTRY_|MONITORING_|LOAD_SHEDDING_LAG_MS$|MAX_CONNECTIONS_PER_CLIENT$|DEBUG$|NITRO_|PORT$|HOST$|WEB_CONCURRENCY$|PAGE_CACHE_MAX_MB$)/;

/** What every server gets: production React, loopback, a free port. */
const BASE_ENV = { NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0' };

/**
 * Starts `node <script>` with `env` over a scrubbed environment and resolves once it prints
 * "Listening on http://127.0.0.1:PORT" (nitro's entry, ours and bare-react.mjs all do).
 */
function startNodeServer({ name, script, cwd = ROOT, env = {} }) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !CONTROLLED.test(key)),
  );
  const child = spawnTracked(process.execPath, [script], {
    cwd,
    env: { ...inherited, ...BASE_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk) => {
    // Read on after "Listening": a full pipe would block the server's next write.
    if (output.length < 20_000) output += chunk;
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not listen within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const onData = () => {
      const match = /Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      resolve({
        name,
        child,
        pid: child.pid,
        origin: `http://127.0.0.1:${match[1]}`,
        output: () => output,
      });
    };
    const onExit = (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${signal ?? code}) before listening:\n${output}`));
    };
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

export const startMinimalStart = () =>
  startNodeServer({ name: 'minimal Start 1.120', script: MINIMAL_ENTRY, cwd: MINIMAL_ROOT });

export const startBareReact = () =>
  startNodeServer({ name: 'bare React 19 stream', script: BARE_REACT });

/**
 * Our production build. `dsn` unset: local inbox mode, in a temp dir removed on exit. Load
 * shedding is off (LOAD_SHEDDING_LAG_MS=0): this measures the cost of a page, and 503s under
 * the bench's own load would count as fast answers (docs/decisions/0810). `tracesSampleRate`
 * ('0' or '1') fixes whether the browser's page view is traced, which decides what JavaScript a
 * first visit loads (decision 0950); the server's work is the same either way. `workers`:
 * WEB_CONCURRENCY, one process unless told. `pageCache`: the page cache on (decision 1300), so
 * /about and / are rendered once and then answered from it; off unless told, so that every
 * request renders.
 */
export function startOurs({ name, dsn, tracesSampleRate, workers = '1', pageCache = false }) {
  const env = {
    LOAD_SHEDDING_LAG_MS: '0',
    SENTRY_TRACES_SAMPLE_RATE: tracesSampleRate,
    WEB_CONCURRENCY: workers,
    PAGE_CACHE_MAX_MB: pageCache ? '16' : '0',
  };
  if (dsn) env.SENTRY_DSN = dsn;
  else env.MONITORING_INBOX_DIR = makeTempDir('bench-pages-inbox-');
  return startNodeServer({ name, script: OUR_ENTRY, env });
}
