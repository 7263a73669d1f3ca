import { describe, expect, it } from 'vitest';
import {
  eventLoopWindows,
  latestRuntimeHealth,
  nextRuntimeHealth,
  nextShedding,
  sheddingAfterWindow,
  WINDOW_MS,
} from '#app/server/health/event-loop.server';

describe('eventLoopWindows', () => {
  it('is one monitor per process, whoever asks', () => {
    expect(eventLoopWindows()).toBe(eventLoopWindows());
  });

  it('gives every caller until the current window ends one shared promise of the next whole window', async () => {
    const windows = eventLoopWindows();
    const asked = performance.now();
    const first = windows.next();
    expect(windows.next()).toBe(first);
    const window = await first;
    // A window that began after the call: it ended at least one window later.
    expect(performance.now() - asked).toBeGreaterThanOrEqual(WINDOW_MS - 5);
    expect(window.windowMs).toBeGreaterThanOrEqual(WINDOW_MS - 5);
    // Its start is on performance.now()'s clock (load shedding judges a window by it).
    expect(window.startedAt).toBeGreaterThanOrEqual(asked);
    expect(window.startedAt + window.windowMs).toBeLessThanOrEqual(performance.now() + 1);
    expect(windows.last()).toBe(window);
    expect(windows.next()).not.toBe(first);
  });
});

describe('runtime health', () => {
  it('reads the last complete window and says nothing of Node, memory or paths', async () => {
    await nextRuntimeHealth();
    const health = await latestRuntimeHealth();
    expect(Object.keys(health).sort()).toEqual([
      'eventLoopDelayMaxMs',
      'eventLoopDelayP50Ms',
      'eventLoopDelayP99Ms',
      'uptimeSeconds',
      'windowMs',
    ]);
    expect(health.eventLoopDelayP99Ms).toBeGreaterThanOrEqual(health.eventLoopDelayP50Ms);
    expect(health.eventLoopDelayMaxMs).toBeGreaterThanOrEqual(health.eventLoopDelayP99Ms);
  });
});

describe('nextShedding', () => {
  it.each([
    // shedding, lag, threshold → shedding next
    [false, 10, 100, false],
    [false, 100, 100, false],
    [false, 101, 100, true],
    [true, 60, 100, true], // still above half: keep shedding
    [true, 50, 100, true],
    [true, 49, 100, false],
    [false, 5000, 0, false], // 0 turns it off
    [true, 5000, 0, false],
  ])(
    'shedding=%j with lag %j ms and threshold %j ms → %j',
    (shedding, lagMs, thresholdMs, next) => {
      expect(nextShedding({ shedding, lagMs, thresholdMs })).toBe(next);
    },
  );
});

describe('sheddingAfterWindow: only windows begun once the server is warm are judged', () => {
  it.each([
    // warmAt and startedAt on the windows' clock (performance.now()), threshold 100 ms
    {
      case: 'warming up: its own start holding the loop is not load',
      shedding: false,
      startedAt: 0,
      meanMs: 757,
      warmAt: undefined,
      thresholdMs: 100,
      next: false,
    },
    {
      case: 'a window with the end of the warm-up in it',
      shedding: false,
      startedAt: 900,
      meanMs: 400,
      warmAt: 1000,
      thresholdMs: 100,
      next: false,
    },
    {
      case: 'a window begun the moment the server was warm',
      shedding: false,
      startedAt: 1000,
      meanMs: 101,
      warmAt: 1000,
      thresholdMs: 100,
      next: true,
    },
    {
      case: 'a later window over the threshold: shed',
      shedding: false,
      startedAt: 1250,
      meanMs: 101,
      warmAt: 1000,
      thresholdMs: 100,
      next: true,
    },
    {
      case: 'a later window at the threshold: not yet',
      shedding: false,
      startedAt: 1250,
      meanMs: 100,
      warmAt: 1000,
      thresholdMs: 100,
      next: false,
    },
    {
      case: 'shedding: kept while above half the threshold',
      shedding: true,
      startedAt: 1500,
      meanMs: 50,
      warmAt: 1000,
      thresholdMs: 100,
      next: true,
    },
    {
      case: 'shedding: ends under half',
      shedding: true,
      startedAt: 1500,
      meanMs: 49,
      warmAt: 1000,
      thresholdMs: 100,
      next: false,
    },
    {
      case: 'shedding is not carried into a window begun before warm',
      shedding: true,
      startedAt: 900,
      meanMs: 80,
      warmAt: 1000,
      thresholdMs: 100,
      next: false,
    },
    {
      case: 'the threshold 0 turns it off',
      shedding: false,
      startedAt: 1250,
      meanMs: 5000,
      warmAt: 1000,
      thresholdMs: 0,
      next: false,
    },
  ])('$case', ({ shedding, startedAt, meanMs, warmAt, thresholdMs, next }) => {
    expect(
      sheddingAfterWindow({ shedding, window: { startedAt, meanMs }, warmAt, thresholdMs }),
    ).toBe(next);
  });
});
