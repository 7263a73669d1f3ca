/**
 * How long the primary waits before it starts a worker again in place of one that stopped
 * (./primary.server.ts): at once for a worker that had run a while, doubling for one that keeps
 * stopping soon after its start, so a crash loop costs a line and a fork every 30 s, not a
 * machine's worth of forks. Pure.
 */

export const FIRST_RESTART_DELAY_MS = 100;
export const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that served this long was not crash-looping: the next restart is quick again. */
export const STABLE_AFTER_MS = 60_000;

/** `previousMs`: the delay before the stopped worker's own start (undefined: it was the first). */
export function restartDelayMs(previousMs: number | undefined, livedMs: number): number {
  if (previousMs === undefined || livedMs >= STABLE_AFTER_MS) return FIRST_RESTART_DELAY_MS;
  return Math.min(MAX_RESTART_DELAY_MS, Math.max(FIRST_RESTART_DELAY_MS, previousMs * 2));
}
