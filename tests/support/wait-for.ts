/** Waiting on a condition instead of sleeping: polls until it holds, fails after `timeoutMs`. */

const POLL_MS = 5;

/** Resolves with the probe's first value other than undefined. */
export async function waitFor<T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Resolves once the condition holds. */
export async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  await waitFor(() => (condition() ? true : undefined), timeoutMs);
}

/** Resolves once an asynchronous condition (a request) holds, asked again every 50 ms. */
export async function eventually(
  condition: () => Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
