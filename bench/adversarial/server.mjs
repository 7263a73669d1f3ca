// The built server entry in a child process, on 127.0.0.1 and a free port,
// with its stderr kept so that the bench can say what the server complained about.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasExited, spawnNode, stop } from './children.mjs';

/**
 * The build under test: this checkout's, or with BENCH_SERVER_ENTRY another build's entry (a
 * kept copy of an older `.output`), so that two builds can be measured turn about in one session.
 */
export const ENTRY = process.env.BENCH_SERVER_ENTRY
  ? resolve(process.env.BENCH_SERVER_ENTRY)
  : fileURLToPath(new URL('../../.output/server/index.mjs', import.meta.url));
const START_TIMEOUT_MS = 30_000;
export const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36';

/** Settings the bench decides: inherited ones would change what is measured. */
const CONTROLLED =
  /^(SENTRY_|MONITORING_|LOAD_SHEDDING_LAG_MS$|MAX_CONNECTIONS_PER_CLIENT$|DEBUG$)/;

/**
 * Starts the server with `env` on top of a clean environment; a value of undefined leaves the
 * variable unset (the app's default). Resolves once it prints "Listening on".
 */
export function startServer({ env, fdLimit }) {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !CONTROLLED.test(key)),
  );
  // One process: the figures are per process, and a worker per core would share these cores
  // with the load (bench:pages measures workers).
  const merged = {
    ...base,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    WEB_CONCURRENCY: '1',
  };
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined) merged[key] = value;
  }
  const child = spawnNode([ENTRY], { env: merged, stdio: ['ignore', 'pipe', 'pipe'], fdLimit });
  const stderr = [];
  let stdout = '';
  let stopping = false;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => stderr.push(chunk));
  // Read on after "Listening": a full pipe would block the server's next console.log.
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    if (stdout.length < 10_000) stdout += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not listen within ${START_TIMEOUT_MS} ms:\n${stdout}`));
    }, START_TIMEOUT_MS);
    const onData = () => {
      const match = /Listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      const port = Number(match[1]);
      resolve({
        child,
        port,
        origin: `http://127.0.0.1:${port}`,
        pid: child.pid,
        /** What went wrong besides what was asked: stderr lines, and an exit nobody asked for. */
        complaints() {
          const lines = stderr.join('').split('\n').filter(Boolean);
          if (hasExited(child) && !stopping) {
            lines.push(`(server exited on its own: ${child.signalCode ?? child.exitCode})`);
          }
          return lines;
        },
        async stop() {
          stopping = !hasExited(child);
          const how = await stop(child);
          return how;
        },
      });
    };
    const onExit = (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`server exited (${signal ?? code}) before listening${stdout && `:\n${stdout}`}`),
      );
    };
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Renders pages as a browser asks for them: Start's AsyncLocalStorage is on from then on. */
export async function renderPages(origin) {
  for (const path of ['/', '/about']) {
    const page = await fetch(`${origin}${path}`, {
      headers: { 'user-agent': BROWSER_UA },
      signal: AbortSignal.timeout(15_000),
    });
    await page.text();
    if (page.status !== 200) throw new Error(`GET ${path} answered ${page.status}`);
  }
}

/** Prints the server's stderr, a few distinct lines, after the figures they may explain. */
export function printComplaints(label, server, stopped) {
  const lines = server.complaints();
  if (stopped === 'killed') lines.push('(did not exit within 5 s of SIGTERM: killed)');
  if (lines.length === 0) return;
  // Lines that differ only in numbers are one kind of line.
  const kinds = new Map();
  for (const line of lines) {
    const kind = line.replace(/\d+/g, '#');
    if (!kinds.has(kind)) kinds.set(kind, { line, count: 0 });
    kinds.get(kind).count += 1;
  }
  console.log(`  server stderr, ${label}: ${lines.length} line(s)`);
  for (const { line, count } of [...kinds.values()].slice(0, 4)) {
    const shown = line.length > 150 ? `${line.slice(0, 150)}…` : line;
    console.log(`    ${count > 1 ? `${count}× ` : ''}${shown}`);
  }
  if (kinds.size > 4) console.log(`    … and ${kinds.size - 4} other kind(s) of line`);
}

/** An error as one line for a table's "failed" note: the server's output follows the first. */
export function firstLine(error) {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}
