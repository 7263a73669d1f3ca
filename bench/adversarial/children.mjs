// Child processes for the adversarial bench: started with an optional higher descriptor limit,
// each waited for with a bound, and all of them killed however the run ends, so that the bench
// can never hang on a child or leave one behind.
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const live = new Set();
// Last resort (an uncaught error, process.exit): 'exit' handlers run synchronously, and kill is.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Starts `node <args>`. With `fdLimit`, through `sh -c 'ulimit -n N; exec node …'`: the shell
 * raises the soft limit up to the hard one and `exec` keeps the pid, so /proc/<pid> is node's.
 */
export function spawnNode(args, { fdLimit, ...options } = {}) {
  const child =
    fdLimit === undefined
      ? spawn(process.execPath, args, options)
      : spawn('sh', ['-c', `ulimit -n ${fdLimit} && exec "$0" "$@"`, process.execPath, ...args], {
          ...options,
        });
  return track(child);
}

/** Forks a Node module with an IPC channel, its output on ours. */
export function forkNode(path, args) {
  return track(fork(path, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
}

function track(child) {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Whether the child has exited: then no 'exit' event will come, and nobody may wait for one. */
export function hasExited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves when the child has exited, at once if it already has. */
export function exited(child) {
  if (hasExited(child)) return Promise.resolve();
  return new Promise((done) => child.once('exit', () => done()));
}

/**
 * SIGTERM, then SIGKILL after `graceMs`. Resolves with what happened, for the report:
 * 'exited before' (it was not ours to stop: a crash), 'stopped' or 'killed'.
 */
export async function stop(child, graceMs = 5_000) {
  if (hasExited(child)) return 'exited before';
  const gone = exited(child);
  child.kill('SIGTERM');
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, graceMs);
  await gone;
  clearTimeout(timer);
  return killed ? 'killed' : 'stopped';
}

/** The child's next IPC message that `accept`s, or a rejection on its exit or after `ms`. */
export function nextMessage(child, ms, accept = () => true) {
  return new Promise((done, fail) => {
    const onMessage = (message) => {
      if (!accept(message)) return;
      cleanup();
      done(message);
    };
    const onExit = (code, signal) => {
      cleanup();
      fail(new Error(`child exited (${signal ?? code}) before it answered`));
    };
    const timer = setTimeout(() => {
      cleanup();
      fail(new Error(`child did not answer within ${ms} ms`));
    }, ms);
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    if (hasExited(child)) {
      cleanup();
      fail(new Error('child had already exited'));
      return;
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Resident memory of a process in MiB, from /proc; undefined elsewhere or once it is gone. */
export function rssMiB(pid) {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kb ? Number(kb[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** This process's soft and hard "Max open files" (Infinity when unlimited or unknown). */
export function descriptorLimits() {
  try {
    const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(
      readFileSync('/proc/self/limits', 'utf8'),
    );
    const parse = (text) => (text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text));
    return { soft: parse(match[1]), hard: parse(match[2]) };
  } catch {
    return { soft: Number.POSITIVE_INFINITY, hard: Number.POSITIVE_INFINITY };
  }
}

export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
