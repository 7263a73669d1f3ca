import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  FIRST_RETRY_MS,
  loadUntilLoaded,
  MAX_RETRY_MS,
  sdkRetryDelayMs,
} from '#app/monitoring/sdk-retries';

describe("sdkRetryDelayMs: the SDK offline transport's schedule", () => {
  it.each<[number, number]>([
    [1, 5_000],
    [2, 10_000],
    [3, 20_000],
    [10, 2_560_000],
    [11, 3_600_000],
    [50, 3_600_000],
  ])('after %i failures in a row: %i ms', (failures, delay) => {
    expect(sdkRetryDelayMs(failures)).toBe(delay);
  });

  it('starts at 5 s and never passes an hour', () => {
    expect(FIRST_RETRY_MS).toBe(5_000);
    expect(MAX_RETRY_MS).toBe(3_600_000);
  });
});

describe('loadUntilLoaded', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** A load that fails `failing` times, then succeeds; counts its calls. */
  function flakyLoad(failing: number) {
    const load = vi.fn(async () => {
      if (load.mock.calls.length <= failing) throw new Error('Failed to fetch');
    });
    return load;
  }

  it('loads once when the first load works; nothing runs meanwhile', async () => {
    const load = flakyLoad(0);
    const meanwhile = vi.fn();
    loadUntilLoaded(load, meanwhile, new EventTarget());
    await vi.runAllTimersAsync();
    expect(load).toHaveBeenCalledTimes(1);
    expect(meanwhile).not.toHaveBeenCalled();
  });

  it('without an online event, tries again on the schedule, and stops once loaded', async () => {
    const load = flakyLoad(2);
    const meanwhile = vi.fn();
    loadUntilLoaded(load, meanwhile, new EventTarget());
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(1);
    expect(meanwhile).toHaveBeenLastCalledWith(expect.any(Error), 5_000);

    await vi.advanceTimersByTimeAsync(4_999);
    expect(load).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(load).toHaveBeenCalledTimes(2);
    expect(meanwhile).toHaveBeenLastCalledWith(expect.any(Error), 10_000);

    await vi.advanceTimersByTimeAsync(10_000);
    expect(load).toHaveBeenCalledTimes(3);
    await vi.runAllTimersAsync();
    expect(load).toHaveBeenCalledTimes(3);
    expect(meanwhile).toHaveBeenCalledTimes(2);
  });

  it('an online event tries at once, and the timer it replaced does not try again', async () => {
    const browser = new EventTarget();
    const load = flakyLoad(1);
    loadUntilLoaded(load, () => {}, browser);
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(1);

    browser.dispatchEvent(new Event('online'));
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(2);
    await vi.runAllTimersAsync();
    browser.dispatchEvent(new Event('online'));
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('one try per failure: an online event after the timer fired does not add a second', async () => {
    const browser = new EventTarget();
    const load = flakyLoad(Number.POSITIVE_INFINITY);
    loadUntilLoaded(load, () => {}, browser);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(load).toHaveBeenCalledTimes(2);
    browser.dispatchEvent(new Event('online'));
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(3);
    // The third failure waits 20 s: nothing before.
    await vi.advanceTimersByTimeAsync(19_999);
    expect(load).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(load).toHaveBeenCalledTimes(4);
  });
});
