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

/**
 * Waits until the page's Sentry client exists. It loads after hydration, and for a page view
 * that is not traced only once there is something to send (decision 0950): see
 * `loadSdkWithAReport`.
 */
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

/**
 * Waits until tracing has started: it loads after hydration (app/monitoring/tracing.ts),
 * so a page load span exists only from then on.
 */
export async function waitForTracing(page: Page): Promise<void> {
  await expect.poll(() => tracingStarted(page)).toBe(true);
}

/** Whether the late part of the monitoring has loaded and added the tracing integration. */
export function tracingStarted(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const win = window as unknown as {
      __SENTRY__?: Record<
        string,
        { defaultCurrentScope?: { getClient(): { getIntegrationByName(name: string): unknown } } }
      > & { version: string };
    };
    const client = win.__SENTRY__?.[win.__SENTRY__.version]?.defaultCurrentScope?.getClient();
    return !!client?.getIntegrationByName('BrowserTracing');
  });
}

/**
 * Starts recording the messages of the error events the SDK hands to its transport (its
 * `beforeEnvelope` hook): handed over, not necessarily sent yet.
 */
export async function recordHandedToTransport(page: Page): Promise<void> {
  await page.evaluate(() => {
    type Hooked = { on(hook: string, callback: (envelope: unknown) => void): void };
    const win = window as unknown as {
      __SENTRY__: Record<string, { defaultCurrentScope?: { getClient(): Hooked | undefined } }> & {
        version: string;
      };
      __handedToTransport: string[];
    };
    const client = win.__SENTRY__[win.__SENTRY__.version]?.defaultCurrentScope?.getClient();
    if (!client) throw new Error('no Sentry client in the page');
    win.__handedToTransport = [];
    client.on('beforeEnvelope', (envelope) => {
      const items = (envelope as [unknown, Array<[{ type?: string }, unknown]>])[1];
      for (const [header, payload] of items) {
        if (header.type !== 'event') continue;
        const event = payload as {
          message?: string;
          exception?: { values?: Array<{ value?: string }> };
        };
        win.__handedToTransport.push(event.exception?.values?.at(-1)?.value ?? event.message ?? '');
      }
    });
  });
}

/** The messages recorded by `recordHandedToTransport`. */
export function handedToTransport(page: Page): Promise<string[]> {
  return page.evaluate(
    () => (window as unknown as { __handedToTransport: string[] }).__handedToTransport,
  );
}

/**
 * Waits until the page's recorder listens (app/monitoring/recorder/recorder.ts, inline in the
 * document head): errors are caught from then on, before any bundle and the SDK have loaded.
 */
export async function waitForRecorder(page: Page): Promise<void> {
  await page.waitForFunction(() => '__monitoringRecorder' in window);
}

/** How many reports wait in the recorder for the SDK (0 once it has taken over). */
export function pendingReports(page: Page): Promise<number> {
  return page.evaluate(() =>
    (
      window as unknown as { __monitoringRecorder: { pendingCount(): number } }
    ).__monitoringRecorder.pendingCount(),
  );
}

/**
 * Makes a page view that is not traced load the SDK, as its first report does (decision 0950):
 * a message through the page's recorder, as the CSP listener sends one. Resolves once the client
 * exists and `ingest` has the message; `received` tells what the ingest got so far.
 */
export async function loadSdkWithAReport(
  page: Page,
  received: () => string[],
  message = 'loads the SDK',
): Promise<void> {
  await page.evaluate((text) => {
    const win = window as unknown as {
      __monitoringRecorder: {
        captureMessage(message: string, context: { level: string }): string;
      };
    };
    win.__monitoringRecorder.captureMessage(text, { level: 'info' });
  }, message);
  await waitForSentryClient(page);
  await expect.poll(received).toContain(message);
}
