/**
 * The Sentry SDK loads only when the page needs it (app/monitoring/start-browser-monitoring.ts,
 * decision 0950): a page view that is not traced and has nothing to report loads none of it, and
 * still starts its release-health session; the first report that is not noise, or envelopes an
 * earlier visit left in the offline store, load the SDK's errors part, never tracing's.
 */

import { expect, type Page, test } from '@playwright/test';
import { OFFLINE_DATABASE, OFFLINE_STORE } from '#app/monitoring/start-browser-monitoring';
import { errorEvents, errorMessages, sessionUpdates } from '#tests/support/received-envelopes';
import { appWithFakeSentry } from './support/app-with-fake-sentry';
import { waitForHydration } from './support/hydration';
import { throwInPage } from './support/page-sdk';

const app = appWithFakeSentry((fake) => ({
  SENTRY_DSN: fake.dsn(),
  // No page view is traced: what loads, loads because something must be sent.
  SENTRY_TRACES_SAMPLE_RATE: '0',
}));

const SDK_CHUNK = /\/_build\/assets\/(sdk-loader|vendor-sentry|tracing|sentry-tracing)-[\w-]+\.js$/;

/** The SDK's chunks the page requests, by name, from now on. */
function watchSdkChunks(page: Page): string[] {
  const requested: string[] = [];
  page.on('request', (request) => {
    const chunk = SDK_CHUNK.exec(request.url())?.[1];
    if (chunk) requested.push(chunk);
  });
  return requested;
}

async function openHydrated(page: Page, path = '/about'): Promise<void> {
  await page.goto(`${app.server.url}${path}`);
  await waitForHydration(page);
}

test('a page view with nothing to send loads no SDK, and still starts its session', async ({
  page,
}) => {
  const chunks = watchSdkChunks(page);
  await openHydrated(page);

  await expect.poll(() => sessionUpdates(app.ingest.received)).toHaveLength(1);
  const [session] = sessionUpdates(app.ingest.received);
  expect(session).toMatchObject({ init: true, status: 'ok', errors: 0 });
  expect(session?.sid).toMatch(/^[0-9a-f]{32}$/);
  expect(session?.attrs).toMatchObject({ environment: 'production' });
  // Hydrated and the network idle: nothing of the SDK came, nor will without a reason.
  expect(chunks).toEqual([]);
});

test('the first error loads the SDK (errors only), arrives with its stack, and marks the session unhandled', async ({
  page,
}) => {
  const chunks = watchSdkChunks(page);
  await openHydrated(page);
  await expect.poll(() => sessionUpdates(app.ingest.received)).toHaveLength(1);
  expect(chunks).toEqual([]);

  await page.evaluate(() => {
    function throwsAfterHydration() {
      throw new Error('thrown with no SDK loaded');
    }
    setTimeout(throwsAfterHydration);
  });

  await expect
    .poll(() => errorMessages(app.ingest.received))
    .toContain('thrown with no SDK loaded');
  const [event] = errorEvents(app.ingest.received);
  expect(event?.frames.at(-1)?.function).toBe('throwsAfterHydration');
  expect(event?.mechanism).toBe('auto.browser.global_handlers.onerror');
  expect(chunks.toSorted()).toEqual(['sdk-loader', 'vendor-sentry']);

  // The SDK continued the page's session: the same id, no second start.
  await expect.poll(() => sessionUpdates(app.ingest.received)).toHaveLength(2);
  const [started, ended] = sessionUpdates(app.ingest.received);
  expect(ended).toMatchObject({ sid: started?.sid, init: false, status: 'unhandled' });
});

test('noise does not load the SDK: a ResizeObserver loop notice', async ({ page }) => {
  const chunks = watchSdkChunks(page);
  await openHydrated(page);
  await page.evaluate(() => {
    const message = 'ResizeObserver loop completed with undelivered notifications.';
    window.dispatchEvent(new ErrorEvent('error', { message }));
  });
  // Then a real error: the SDK loads for it, and the notice, caught before, is still dropped.
  await throwInPage(page, 'real, after the notice');
  await expect.poll(() => errorMessages(app.ingest.received)).toEqual(['real, after the notice']);
  expect(chunks.toSorted()).toEqual(['sdk-loader', 'vendor-sentry']);
});

test('a flood of noise first does not crowd out the real error after it', async ({ page }) => {
  await openHydrated(page);
  await page.evaluate(() => {
    const message = 'ResizeObserver loop completed with undelivered notifications.';
    // More than the 64 places the page keeps while the SDK is not there.
    for (let n = 0; n < 100; n++) window.dispatchEvent(new ErrorEvent('error', { message }));
  });
  await throwInPage(page, 'real, after 100 notices');
  await expect.poll(() => errorMessages(app.ingest.received)).toEqual(['real, after 100 notices']);
});

test('noise alone loads nothing', async ({ page }) => {
  const chunks = watchSdkChunks(page);
  await openHydrated(page);
  await page.evaluate(() => {
    const message = 'ResizeObserver loop completed with undelivered notifications.';
    window.dispatchEvent(new ErrorEvent('error', { message }));
  });
  // A navigation is a round trip through the page's scripts: had the notice started the SDK's
  // import, its request would have gone out before this one finishes.
  await page.getByRole('link', { name: 'How errors are handled' }).click();
  await page.waitForLoadState('networkidle');
  expect(chunks).toEqual([]);
});

test('envelopes an earlier visit left in the offline store load the SDK, which sends them', async ({
  page,
}) => {
  await openHydrated(page);
  // What the SDK's offline transport stores: a serialized envelope, under a numeric key.
  await page.evaluate(
    ({ database, store, dsn }) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open(database);
        open.onupgradeneeded = () => open.result.createObjectStore(store);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const event = {
            event_id: 'c'.repeat(32),
            timestamp: Date.now() / 1000,
            platform: 'javascript',
            level: 'error',
            exception: { values: [{ type: 'Error', value: 'left by an earlier visit' }] },
          };
          const envelope = [
            JSON.stringify({ event_id: event.event_id, dsn }),
            JSON.stringify({ type: 'event' }),
            JSON.stringify(event),
          ].join('\n');
          const transaction = open.result.transaction(store, 'readwrite');
          transaction.objectStore(store).put(envelope, 1);
          transaction.oncomplete = () => {
            open.result.close();
            resolve();
          };
          transaction.onerror = () => reject(transaction.error);
        };
      }),
    { database: OFFLINE_DATABASE, store: OFFLINE_STORE, dsn: app.ingest.dsn() },
  );
  expect(errorMessages(app.ingest.received)).toEqual([]);

  const chunks = watchSdkChunks(page);
  await openHydrated(page, '/');
  await expect.poll(() => errorMessages(app.ingest.received)).toEqual(['left by an earlier visit']);
  expect(chunks.toSorted()).toEqual(['sdk-loader', 'vendor-sentry']);

  // Sent, the store is empty: the next page view loads nothing again.
  const next = watchSdkChunks(page);
  await expect
    .poll(() =>
      page.evaluate(
        ({ database, store }) =>
          new Promise<number>((resolve, reject) => {
            const open = indexedDB.open(database);
            open.onerror = () => reject(open.error);
            open.onsuccess = () => {
              const count = open.result.transaction(store).objectStore(store).count();
              count.onsuccess = () => {
                open.result.close();
                resolve(count.result);
              };
            };
          }),
        { database: OFFLINE_DATABASE, store: OFFLINE_STORE },
      ),
    )
    .toBe(0);
  await openHydrated(page, '/about');
  expect(next).toEqual([]);
});
