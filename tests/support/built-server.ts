/**
 * Starts the production build (the built server entry) on 127.0.0.1 with a free port
 * and the given environment, for HTTP and browser tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { NetworkNamespace } from './network-namespace';
import { rawRequest } from './raw-request';

export interface BuiltServer {
  url: string;
  /** The server's process id, to read its memory from /proc/<pid>/status. */
  pid: number;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  /** Waits until the output matches, or fails after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /**
   * Resolves once everything the server wrote to stderr so far has been read: it makes the
   * server log a line of its own (a tunnel 403 naming a random project) and waits for it.
   * Then "logged once" and "logged nothing" hold for all output before the call.
   */
  stderrBarrier(): Promise<void>;
  /**
   * What the server printed since `output().length` was `mark`, once everything it wrote so
   * far has been read (the barrier above), without the barrier's own line: the words for
   * "logged once" and "logged nothing".
   */
  printedSince(mark: number): Promise<string>;
  /** SIGTERM, then waits for the exit and the end of its output (SIGKILL after 5 s). */
  stop(): Promise<void>;
  /** The exit code, or null while the process runs. */
  exitCode(): number | null;
}

/** How long a test server may take to print its start line: the http project's hook timeout. */
const START_TIMEOUT_MS = 60_000;

/** The production build's entry. */
export const BUILT_ENTRY = resolve(import.meta.dirname, '../../.output/server/index.mjs');

/** Env for a test server: no inherited Sentry settings, an inbox dir of its own. */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('SENTRY_') && key !== 'ENABLE_EXAMPLE_ROUTES') {
      base[key] = value;
    }
  }
  return {
    ...base,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    MONITORING_INBOX_DIR: join(mkdtempSync(join(tmpdir(), 'inbox-')), 'inbox'),
    // Off unless a test turns it on (load-shedding.test.ts): the suite runs several servers and
    // a browser on two cores, and a page shed for that machine's lag would fail a test about
    // something else.
    LOAD_SHEDDING_LAG_MS: '0',
    // No proxy runs in front of a test server, and most tests read /errors from 127.0.0.1 as
    // an operator on the machine would: the production default (a sign-in even from loopback,
    // decision 0306) is exercised where a test sets this to 'false' (inbox-access,
    // inbox-sign-in, behind-nginx, the sign-in browser test).
    MONITORING_INBOX_TRUST_LOOPBACK: 'true',
    // One process, as the limits most tests prove are a process's; tests/http/workers.test.ts
    // and the browser's two-worker spec run several.
    WEB_CONCURRENCY: '1',
    ...extra,
  };
}

export interface BuiltServerOptions {
  /**
   * The largest file the server may write (RLIMIT_FSIZE, through `prlimit`): a write past it
   * fails with EFBIG half-way, as on a full disk, but without filling one.
   */
  fileSizeLimitBytes?: number;
  /** The most files the server may have open (RLIMIT_NOFILE, through `prlimit`). */
  descriptorLimit?: number;
  /**
   * Runs the server inside this namespace (give it a HOST there): then this process reaches it
   * only through the namespace's `connect`, the barrier included.
   */
  namespace?: NetworkNamespace;
  /** Another build's entry (a copy of .output elsewhere); the production build's by default. */
  entry?: string;
}

export async function startBuiltServer(
  env: Record<string, string> = {},
  options: BuiltServerOptions = {},
): Promise<BuiltServer> {
  const { fileSizeLimitBytes, descriptorLimit, namespace, entry = BUILT_ENTRY } = options;
  const limits = [
    ...(fileSizeLimitBytes === undefined ? [] : [`--fsize=${fileSizeLimitBytes}`]),
    ...(descriptorLimit === undefined ? [] : [`--nofile=${descriptorLimit}`]),
  ];
  // nsenter and prlimit exec the command: the child's pid is still the server's.
  const [command = process.execPath, ...args] = [
    ...(namespace ? namespace.enter() : []),
    ...(limits.length > 0 ? ['prlimit', ...limits] : []),
    process.execPath,
    entry,
  ];
  const child = spawn(command, args, {
    env: testEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { output, waitForOutput, exited } = watchOutput(child);
  const listening = await Promise.race([
    // The server listens once warm (decision 1030): on a busy machine, well past 15 s.
    waitForOutput(/Listening on (http:\/\/\S+)/, START_TIMEOUT_MS),
    exited.then((code) => {
      throw new Error(`Server exited with code ${code} before listening. Output:\n${output()}`);
    }),
  ]);
  const url = new URL(listening.replace('Listening on ', '')).origin;
  /** Makes the server log a line of its own on stderr, waits for it, and returns it. */
  const barrier = async (): Promise<string> => {
    const project = String(Math.floor(Math.random() * 1e12));
    const path = `/monitoring?o=0&p=${project}`;
    if (namespace) {
      // From the server's own address, or loopback when it listens on every address.
      const { hostname, port } = new URL(url);
      const bare = hostname.replace(/^\[(.*)\]$/, '$1');
      const host = bare === '::' || bare === '0.0.0.0' ? '127.0.0.1' : bare;
      await rawRequest(`http://${hostname}:${port}${path}`, {
        method: 'POST',
        connect: () => namespace.connect(host, host, Number(port)),
      });
    } else {
      const response = await fetch(`${url}${path}`, { method: 'POST' });
      await response.text();
    }
    return waitForOutput(new RegExp(`\\[tunnel\\] 403 no allowed DSN for o=0 p=${project}\\b`));
  };
  return {
    url,
    pid: child.pid as number,
    output,
    waitForOutput,
    stderrBarrier: async () => {
      await barrier();
    },
    printedSince: async (mark) => {
      const line = await barrier();
      return output().slice(mark).replace(`${line}\n`, '');
    },
    stop: () => stopChild(child, exited),
    exitCode: () => child.exitCode,
  };
}

/** What a child process printed (stdout and stderr), and a way to wait for a line of it. */
export function watchOutput(child: ChildProcess) {
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const wake of waiters) wake();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  // 'close', not 'exit': only then has every byte the server printed been read, so a test can
  // assert on the whole output after stop().
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));

  const waitForOutput = (pattern: RegExp, timeoutMs = 15_000) =>
    new Promise<string>((done, fail) => {
      const check = () => {
        const match = pattern.exec(output);
        if (match) {
          cleanupWaiter();
          done(match[0]);
        }
      };
      const timer = setTimeout(() => {
        cleanupWaiter();
        fail(new Error(`Server output never matched ${pattern}. Output:\n${output}`));
      }, timeoutMs);
      const cleanupWaiter = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      exited.then(() => check());
      check();
    });

  return { output: () => output, waitForOutput, exited };
}

export async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Runs the build with an environment and returns its exit code and output, for env checks. */
export function runBuiltServerToExit(
  env: Record<string, string>,
  timeoutMs = 15_000,
): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BUILT_ENTRY], {
      env: testEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`Server did not exit within ${timeoutMs} ms. Output:\n${output}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}
