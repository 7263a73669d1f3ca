/**
 * The tests' wait (tests/support/wait-for.ts): it waits on asynchronous checks, keeps its
 * deadline even when a check hangs, and says what it waited for when the deadline passes.
 */
import { describe, expect, it } from 'vitest';
import { until, waitFor } from '#tests/support/wait-for';

describe('waitFor', () => {
  it('resolves with the first answer of an asynchronous probe that is not undefined', async () => {
    let asked = 0;
    const found = await waitFor('the third answer', async () => {
      asked++;
      return asked === 3 ? 'found' : undefined;
    });
    expect([found, asked]).toEqual(['found', 3]);
  });

  it('asks again after a probe that throws, and names the last error if it never answers', async () => {
    let asked = 0;
    const found = await waitFor('a stored page', () => {
      asked++;
      if (asked < 3) throw new Error('404');
      return asked;
    });
    expect(found).toBe(3);
    await expect(
      waitFor(
        'a stored page',
        () => {
          throw new Error('answered 404');
        },
        { timeoutMs: 30 },
      ),
    ).rejects.toThrow('waited 30 ms for a stored page; the last check threw: Error: answered 404');
  });

  it('fails at its deadline, naming what it waited for, though the probe never settles', async () => {
    const never = new Promise<undefined>(() => {});
    await expect(
      waitFor('an answer that never comes', () => never, { timeoutMs: 30 }),
    ).rejects.toThrow(/^waited 30 ms for an answer that never comes$/);
  });
});

describe('until', () => {
  it('takes an asynchronous condition, and a description made when it fails', async () => {
    let count = 0;
    await until('a count of 2', async () => ++count === 2);
    expect(count).toBe(2);
    await expect(
      until(
        () => `a count of 100 (at ${count})`,
        () => false,
        { timeoutMs: 20 },
      ),
    ).rejects.toThrow('waited 20 ms for a count of 100 (at 2)');
  });
});
