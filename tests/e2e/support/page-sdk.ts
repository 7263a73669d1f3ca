/**
 * Test-only access to the page's Sentry client through the SDK's global carrier
 * (`window.__SENTRY__`), to know when the SDK has finished with an event that the network
 * never sees (filtered, rate limited, stored offline): its `afterSendEvent` hook.
 */
import { expect, type Page } from '@playwright/test';

/** Starts recording the messages of the events the SDK has finished sending (or dropping). */
export async function recordSentEvents(page: Page): Promise<void> {
  await page.evaluate(() => {
    type Hooked = { on(hook: string, callback: (event: unknown) => void): void };
    const win = window as unknown as {
      __SENTRY__: Record<string, { defaultCurrentScope?: { getClient(): Hooked | undefined } }> & {
        version: string;
      };
      __sentEvents: string[];
    };
    const carrier = win.__SENTRY__[win.__SENTRY__.version];
    const client = carrier?.defaultCurrentScope?.getClient();
    if (!client) throw new Error('no Sentry client in the page');
    win.__sentEvents = [];
    client.on('afterSendEvent', (event) => {
      const values = (event as { exception?: { values?: Array<{ value?: string }> } }).exception
        ?.values;
      win.__sentEvents.push(values?.at(-1)?.value ?? '');
    });
  });
}

/** The messages of the events the SDK has handed to its transport and got an answer for. */
export function sentEvents(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __sentEvents: string[] }).__sentEvents);
}

/** Throws an uncaught error in the page, outside any React code. */
export function throwInPage(page: Page, message: string): Promise<void> {
  return page.evaluate((text) => {
    setTimeout(() => {
      throw new Error(text);
    });
  }, message);
}

/**
 * Captures an error straight through the page's client. Under Playwright's fake clock the
 * global handlers may still be ignoring errors (the SDK clears that flag with a timer).
 */
export function captureInPage(page: Page, message: string): Promise<void> {
  return page.evaluate((text) => {
    const win = window as unknown as {
      __SENTRY__: Record<
        string,
        { defaultCurrentScope?: { getClient(): { captureException(e: unknown): void } } }
      > & { version: string };
    };
    const client = win.__SENTRY__[win.__SENTRY__.version]?.defaultCurrentScope?.getClient();
    if (!client) throw new Error('no Sentry client in the page');
    client.captureException(new Error(text));
  }, message);
}

/** Waits until the page's Sentry client exists (the client entry loads after `load` may fire). */
export async function waitForSentryClient(page: Page): Promise<void> {
  await expect
    .poll(() =>
      page.evaluate(() => {
        const win = window as unknown as {
          __SENTRY__?: Record<string, { defaultCurrentScope?: { getClient(): unknown } }> & {
            version: string;
          };
        };
        return !!win.__SENTRY__?.[win.__SENTRY__.version]?.defaultCurrentScope?.getClient();
      }),
    )
    .toBe(true);
}
