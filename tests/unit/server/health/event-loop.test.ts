import { describe, expect, it } from 'vitest';
import {
  eventLoopWindows,
  latestRuntimeHealth,
  nextRuntimeHealth,
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
