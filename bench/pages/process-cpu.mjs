// CPU time a server has used (all its threads, user and system, and its children's: a cluster's
// workers), from /proc on Linux. Steadier
// than req/s on a shared machine: a server's CPU per request does not depend on how much of
// the machine the load generator or a neighbour takes (docs/decisions/0810-pages-benchmark.md).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond;

/**
 * Seconds of CPU `pid` and its running children have used so far, or undefined where /proc
 * cannot tell. A child that exited meanwhile takes its seconds with it: compare runs without
 * restarts.
 */
export function cpuSecondsOf(pid) {
  const each = cpuSecondsOfEach(pid);
  return each?.reduce((sum, { seconds }) => sum + seconds, 0);
}

/**
 * The same, process by process: `pid` first, then each running child (a cluster's workers), as
 * [{ pid, seconds }]; undefined where /proc cannot tell.
 */
export function cpuSecondsOfEach(pid) {
  const own = ownCpuSecondsOf(pid);
  if (own === undefined) return undefined;
  return [{ pid: String(pid), seconds: own }].concat(
    childrenOf(pid).map((child) => ({ pid: child, seconds: ownCpuSecondsOf(child) ?? 0 })),
  );
}

/** The running children of `pid` (their pids as strings); none where /proc cannot tell. */
export function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
  } catch {
    // No children file (an older kernel): the process alone.
    return [];
  }
}

function ownCpuSecondsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime: fields 14 and 15 of the whole line, 12 and 13 after the name.
    const ticks = Number(fields[11]) + Number(fields[12]);
    ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
    return Number.isFinite(ticks) ? ticks / ticksPerSecond : undefined;
  } catch {
    return undefined;
  }
}
