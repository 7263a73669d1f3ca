import { expect, type Page } from '@playwright/test';

/**
 * What went wrong in the page, from now on: console errors (React logs a hydration mismatch
 * there), uncaught errors, and requests answered 400 or more (`404 /path`), except the paths a
 * test expects to fail. The browser's line for a failed request ("Failed to load resource") is
 * left out: the response itself is listed, with its path. So is the browser's favicon probe.
 */
export function collectPageErrors(
  page: Page,
  { expectedFailures = [] }: { expectedFailures?: string[] } = {},
): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error' || message.text().startsWith('Failed to load resource')) return;
    errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    if (response.status() < 400 || path === '/favicon.ico' || expectedFailures.includes(path))
      return;
    errors.push(`${response.status()} ${path}`);
  });
  return errors;
}

/** React's words for a hydration mismatch, in development and production (#418, #423, #425). */
export const HYDRATION_ERROR = /hydrat|#418|#423|#425|did not match/i;

/**
 * Every Content-Security-Policy violation the browser raises in the page, from the first script
 * on, as `directive blockedURI`: call before the page loads, then read with the function given.
 */
export async function recordViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(`${event.effectiveDirective} ${event.blockedURI}`),
    );
  });
  return () =>
    page.evaluate(() => (window as unknown as { __violations: string[] }).__violations ?? []);
}

/**
 * Appends an inline script with neither nonce nor hash to the page, as an attacker's injection
 * would, and expects the policy to block it: one violation recorded, and the script never ran.
 */
export async function expectInjectedScriptBlocked(
  page: Page,
  violations: () => Promise<string[]>,
): Promise<void> {
  await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'window.__injected = true';
    document.body.append(script);
  });
  await expect.poll(violations).toEqual([expect.stringMatching(/^script-src-elem inline$/)]);
  expect(
    await page.evaluate(() => (window as { __injected?: boolean }).__injected),
  ).toBeUndefined();
}
