import { expect, it } from 'vitest';
import { createRateLimitedLog } from '#app/server/logging/rate-limited-log';

function harness(linesPerWindow = 3, windowMs = 1000) {
  const lines: string[] = [];
  const timers: Array<{ at: number; task: () => void }> = [];
  let clock = 0;
  const log = createRateLimitedLog({
    linesPerWindow,
    windowMs,
    write: (line) => lines.push(line),
    now: () => clock,
    schedule: (task, ms) => timers.push({ at: clock + ms, task }),
  });
  /** Moves the clock and runs the timers that are due, as the event loop would. */
  const advance = (to: number) => {
    clock = to;
    for (const timer of timers.splice(0).sort((a, b) => a.at - b.at)) {
      if (timer.at <= to) timer.task();
      else timers.push(timer);
    }
  };
  return { log, lines, advance };
}

it('writes a kind’s first lines of a window, then counts the rest and sums them up once when the window ends', () => {
  const { log, lines, advance } = harness(3, 1000);
  for (let i = 0; i < 1000; i++) log('tunnel 400', `[tunnel] 400 bad ${i}`);
  expect(lines).toEqual(['[tunnel] 400 bad 0', '[tunnel] 400 bad 1', '[tunnel] 400 bad 2']);
  advance(1000);
  expect(lines.slice(3)).toEqual(['[log] suppressed 997 more "tunnel 400" lines in the last 1 s']);
  advance(5000);
  expect(lines).toHaveLength(4);
});

it('keeps each kind’s budget apart, so a flood of one hides no other', () => {
  const { log, lines } = harness(2);
  for (let i = 0; i < 50; i++) log('tunnel 413', 'big');
  log('sign-in failed', 'wrong token');
  expect(lines).toEqual(['big', 'big', 'wrong token']);
});

it('writes no summary for a window with nothing suppressed, and opens a fresh window after one ends', () => {
  const { log, lines, advance } = harness(2, 1000);
  log('shed', 'a');
  advance(1000);
  expect(lines).toEqual(['a']);
  log('shed', 'b');
  log('shed', 'c');
  log('shed', 'd');
  advance(2000);
  log('shed', 'e');
  expect(lines).toEqual([
    'a',
    'b',
    'c',
    '[log] suppressed 1 more "shed" lines in the last 1 s',
    'e',
  ]);
});

it('ends a window late when the timer is late, without a second summary', () => {
  const { log, lines, advance } = harness(1, 1000);
  log('k', 'one');
  log('k', 'two');
  // The next line comes in after the window but before its timer ran.
  advance(0);
  log('k', 'three');
  expect(lines).toEqual(['one']);
  advance(1200);
  log('k', 'four');
  expect(lines).toEqual(['one', '[log] suppressed 2 more "k" lines in the last 1 s', 'four']);
});

it('gives a kind that says enough in fewer lines a budget of its own', () => {
  const { log, lines, advance } = harness(20, 1000);
  for (let i = 0; i < 100; i++) log('page shed', `shed ${i}`, 1);
  expect(lines).toEqual(['shed 0']);
  advance(1000);
  expect(lines).toEqual(['shed 0', '[log] suppressed 99 more "page shed" lines in the last 1 s']);
});
