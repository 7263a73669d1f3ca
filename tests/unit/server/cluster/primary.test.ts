import { expect, it } from 'vitest';
import {
  FIRST_RESTART_DELAY_MS,
  MAX_RESTART_DELAY_MS,
  restartDelayMs,
  STABLE_AFTER_MS,
} from '#app/server/cluster/primary.server';

it.each([
  // the delay before the stopped worker's start, how long it lived → the next delay
  [undefined, 5, FIRST_RESTART_DELAY_MS], // a worker of the first start: again at once
  [FIRST_RESTART_DELAY_MS, 50, 200], // stopped soon after its restart: twice as long
  [6_400, 1_000, 12_800],
  [20_000, 1_000, MAX_RESTART_DELAY_MS], // a crash loop: one start every 30 s
  [MAX_RESTART_DELAY_MS, 1_000, MAX_RESTART_DELAY_MS],
  [MAX_RESTART_DELAY_MS, STABLE_AFTER_MS, FIRST_RESTART_DELAY_MS], // it had run a while: at once
])('after a delay of %j and %i ms of life, waits %i ms', (previous, lived, next) => {
  expect(restartDelayMs(previous, lived)).toBe(next);
});
