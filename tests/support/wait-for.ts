/**
 * Waiting on a condition instead of sleeping: asks again until it holds, and past a deadline
 * fails with a message that says what was awaited. Hand-written rather than Vitest's
 * `vi.waitFor` because the Playwright tests wait with it too, where Vitest does not run.
 */

export interface Deadline {
  /** How long to keep asking before failing. */
  timeoutMs?: number;
  /** The pause between an answer and the next ask. */
  everyMs?: number;
}

/**
 * Resolves with the probe's first value other than undefined. The probe may be asynchronous (a
 * request) and may throw (a page not stored yet): both mean "not yet", and the last error is
 * given as the failure's cause. A probe that hangs past the deadline fails the wait too.
 * `what` is a phrase (`'the fake Sentry to receive 2 requests'`), or a function giving one, to
 * report the state seen last.
 */
export async function waitFor<T>(
  what: string | (() => string),
  probe: () => T | undefined | Promise<T | undefined>,
  { timeoutMs = 10_000, everyMs = 5 }: Deadline = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await beforeDeadline(probe(), deadline);
      if (value !== undefined) return value;
    } catch (error) {
      if (error === PAST_DEADLINE) break;
      lastError = error;
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  const awaited = typeof what === 'function' ? what() : what;
  const last = lastError === undefined ? '' : `; the last check threw: ${String(lastError)}`;
  throw new Error(`waited ${timeoutMs} ms for ${awaited}${last}`, { cause: lastError });
}

/** Resolves once the condition (which may be asynchronous) holds; see waitFor. */
export async function until(
  what: string | (() => string),
  condition: () => boolean | Promise<boolean>,
  deadline?: Deadline,
): Promise<void> {
  await waitFor(what, async () => ((await condition()) ? true : undefined), deadline);
}

const PAST_DEADLINE = Symbol('past the deadline');

/** The probe's answer, or PAST_DEADLINE thrown once the deadline passes first. */
async function beforeDeadline<T>(answer: T | Promise<T>, deadline: number): Promise<T> {
  if (!(answer instanceof Promise)) return answer;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(PAST_DEADLINE), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}
