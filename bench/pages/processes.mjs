// Every process the pages bench starts (servers, wrk, autocannon) is tracked here and killed
// however the run ends: normally by stopAll() in the run's finally, on a crash or Ctrl-C by the
// 'exit' hook (see bench/pages.mjs for the signals).
import { fork, spawn } from 'node:child_process';
import { hasExited, stop } from '../adversarial/children.mjs';

const live = new Set();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

function track(child) {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

export function spawnTracked(command, args, options) {
  return track(spawn(command, args, options));
}

export function forkTracked(path, args) {
  return track(fork(path, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
}

/** SIGTERM each one still running (SIGKILL after 5 s), all at once, and waits for them. */
export async function stopAll() {
  await Promise.all([...live].filter((child) => !hasExited(child)).map((child) => stop(child)));
}
