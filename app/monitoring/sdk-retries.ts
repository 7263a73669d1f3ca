/**
 * What the page does while the Sentry SDK's chunk cannot be loaded (decision 1040): the recorder
 * sends what waits without it, and the SDK is tried again when the browser says it is back
 * online or on the SDK's own retry schedule, whichever comes first. The schedule is needed
 * because `online` fires only for a network the browser saw go: a network that fails behind a
 * connected interface (a router, a captive portal, a proxy) never sends it.
 */

/** The SDK's offline transport's schedule (@sentry/core 11.12, transports/offline.js). */
export const FIRST_RETRY_MS = 5_000;
export const MAX_RETRY_MS = 60 * 60_000;

/** How long after its n-th failed load in a row (1, 2, …) the SDK is tried again. */
export function sdkRetryDelayMs(failures: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), MAX_RETRY_MS);
}

/**
 * Runs `load` until it resolves. After each failure, `whileUnavailable` runs (with the error and
 * the delay before the next try), and `load` runs again at `online` or after the delay.
 */
export function loadUntilLoaded(
  load: () => Promise<void>,
  whileUnavailable: (error: unknown, retryInMs: number) => void,
  browser: Pick<EventTarget, 'addEventListener' | 'removeEventListener'> = window,
): void {
  let failures = 0;
  const attempt = () => {
    load().catch((error: unknown) => {
      failures++;
      const delay = sdkRetryDelayMs(failures);
      const again = () => {
        clearTimeout(timer);
        browser.removeEventListener('online', again);
        attempt();
      };
      const timer = setTimeout(again, delay);
      browser.addEventListener('online', again);
      whileUnavailable(error, delay);
    });
  };
  attempt();
}
