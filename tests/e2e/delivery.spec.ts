/**
 * No report lost (issue 24, decision 0510): the recorder runs first, inline in the head; what
 * cannot be sent now (offline, the SDK unreachable, a tunnel 5xx, a 429) is kept in the browser
 * and sent later, once, by its event id. Chromium against the production build, a fake Sentry
 * behind the real tunnel; tunnel answers and failed chunks are faked with `page.route`.
 */

import { createHash } from 'node:crypto';
import { type BrowserContext, expect, type Page, type Route, test } from '@playwright/test';
import { errorEvents, errorMessages, sessionUpdates } from '#tests/support/received-envelopes';
import { appWithFakeSentry } from './support/app-with-fake-sentry';
import { waitForHydration } from './support/hydration';
import {
  loadSdkWithAReport,
  pendingReports,
  recordSentEvents,
  sentEvents,
  throwInPage,
  waitForRecorder,
} from './support/page-sdk';
import { sdkOfflineCount, storedReportIds } from './support/recorder-store';
import { TUNNEL_TIMEOUT_MS } from './support/tunnel';

const app = appWithFakeSentry((fake) => ({
  SENTRY_DSN: fake.dsn(),
  SENTRY_TUNNEL_TIMEOUT_MS: String(TUNNEL_TIMEOUT_MS),
  // No page view is traced: the SDK loads only for something to send.
  SENTRY_TRACES_SAMPLE_RATE: '0',
}));

const SDK_CHUNK = /\/_build\/assets\/(sdk-loader|vendor-sentry)-[\w-]+\.js$/;

/** Error events received with this message, one entry per arrival. */
const arrivals = (message: string) =>
  errorEvents(app.ingest.received).filter((event) => event.message === message);

/** /about, hydrated, its session start arrived: the tunnel is idle, no SDK loaded. */
async function openAbout(page: Page): Promise<void> {
  await page.goto(`${app.server.url}/about`);
  await waitForHydration(page);
  await expect.poll(() => sessionUpdates(app.ingest.received)).toHaveLength(1);
}

/**
 * A later page view settles: hydrated, the SDK (loaded for what was left) has taken and sent
 * everything, neither store holds anything, no request is in flight. What arrived by then
 * arrived; nothing more will.
 */
async function settledPageView(page: Page): Promise<void> {
  await page.goto(`${app.server.url}/`);
  await waitForHydration(page);
  await expect.poll(() => storedReportIds(page)).toEqual([]);
  await expect.poll(() => sdkOfflineCount(page)).toBe(0);
  await page.waitForLoadState('networkidle');
}

/**
 * On /about, offline before the SDK ever loaded: throws `message`, and resolves once the SDK's
 * chunk failed to load and the recorder has kept the report in the browser.
 */
async function throwOfflineBeforeTheSdk(
  page: Page,
  context: BrowserContext,
  message: string,
): Promise<void> {
  await openAbout(page);
  await context.setOffline(true);
  const failed = page.waitForEvent('console', (line) =>
    line.text().includes('the Sentry SDK did not load'),
  );
  await throwInPage(page, message);
  // The SDK's chunk cannot be fetched offline: the report stays in the browser.
  await failed;
  await expect.poll(() => storedReportIds(page)).toHaveLength(1);
}

test('an error raised offline before the SDK ever loaded arrives once the browser is back online', async ({
  page,
  context,
}) => {
  await throwOfflineBeforeTheSdk(page, context, 'raised offline, no SDK yet');
  expect(arrivals('raised offline, no SDK yet')).toEqual([]);

  await context.setOffline(false);
  await expect.poll(() => arrivals('raised offline, no SDK yet')).toHaveLength(1);
  await settledPageView(page);
  expect(arrivals('raised offline, no SDK yet')).toHaveLength(1);
});

test('an error raised offline before the SDK ever loaded arrives on the next page view', async ({
  page,
  context,
}) => {
  await throwOfflineBeforeTheSdk(page, context, 'raised offline, then the tab closed');
  // Closed while offline: no beacon can leave, the report stays stored.
  await page.close();
  expect(arrivals('raised offline, then the tab closed')).toEqual([]);

  await context.setOffline(false);
  const next = await context.newPage();
  await next.goto(`${app.server.url}/about`);
  await expect.poll(() => arrivals('raised offline, then the tab closed')).toHaveLength(1);
  const [event] = arrivals('raised offline, then the tab closed');
  // Made by the SDK from the stored facts: the page it happened on, the stack it had.
  expect(event?.mechanism).toBe('auto.browser.global_handlers.onerror');
  expect(event?.frames.length).toBeGreaterThan(0);
  await settledPageView(next);
  expect(arrivals('raised offline, then the tab closed')).toHaveLength(1);
});

test('offline before the SDK ever loaded, its import still failing once back online (a browser that caches the failure): the recorder sends the report itself, once', async ({
  page,
  context,
}) => {
  // As Chromium did before it stopped caching failed module fetches (whatwg/html#10327): every
  // import() of the chunk fails at once, until the next page view.
  await page.route(SDK_CHUNK, (route) => route.abort('internetdisconnected'));
  await throwOfflineBeforeTheSdk(page, context, 'raised offline, the SDK import failing');

  await context.setOffline(false);
  await expect.poll(() => arrivals('raised offline, the SDK import failing')).toHaveLength(1);
  const [event] = arrivals('raised offline, the SDK import failing');
  // The recorder's minimal envelope, with the facts the SDK would have sent.
  expect(event?.mechanism).toBe('auto.browser.global_handlers.onerror');
  expect(event?.frames.length).toBeGreaterThan(0);
  await expect.poll(() => storedReportIds(page)).toEqual([]);
  await settledPageView(page);
  expect(arrivals('raised offline, the SDK import failing')).toHaveLength(1);
});

test('the network lost without the browser noticing (no online event) before the SDK loaded: the SDK is tried again on its schedule and sends the report, once', async ({
  page,
}) => {
  await openAbout(page);
  // A network that fails behind a connected interface: requests fail, navigator.onLine stays
  // true, and no `online` event will say when it is back.
  const cut = (route: Route) => route.abort('internetdisconnected');
  await page.route(SDK_CHUNK, cut);
  await page.route('**/monitoring?*', cut);
  const recorderTried = page.waitForEvent('requestfailed', (request) =>
    (request.postData() ?? '').includes('raised while the network is silently gone'),
  );
  await throwInPage(page, 'raised while the network is silently gone');
  // The SDK did not load, and the recorder's own try failed too: the report stays stored.
  await recorderTried;
  await expect.poll(() => storedReportIds(page)).toHaveLength(1);
  expect(await page.evaluate(() => navigator.onLine)).toBe(true);

  await page.unrouteAll({ behavior: 'wait' });
  // The next try, 5 s after the failure (`loadUntilLoaded` in start-browser-monitoring.ts), loads the SDK, which sends it.
  await expect
    .poll(() => arrivals('raised while the network is silently gone'), { timeout: 20_000 })
    .toHaveLength(1);
  await settledPageView(page);
  expect(arrivals('raised while the network is silently gone')).toHaveLength(1);
});

test('a deploy removed the SDK chunk: the recorder sends each report itself as it comes, once, and the session update', async ({
  page,
}) => {
  // No URL will load it again: a fresh one would get the same 404.
  await page.route(SDK_CHUNK, (route) => route.fulfill({ status: 404, body: 'Not Found' }));
  await openAbout(page);

  await throwInPage(page, 'raised after a deploy, first');
  await expect.poll(() => arrivals('raised after a deploy, first')).toHaveLength(1);
  await throwInPage(page, 'raised after a deploy, second');
  await expect.poll(() => arrivals('raised after a deploy, second')).toHaveLength(1);
  // Release health as the SDK would have it: the page's session went `unhandled`, once.
  await expect.poll(() => sessionUpdates(app.ingest.received)).toHaveLength(2);
  const [started, update] = sessionUpdates(app.ingest.received);
  expect(update).toMatchObject({ sid: started?.sid, init: false, status: 'unhandled', errors: 1 });

  await expect.poll(() => storedReportIds(page)).toEqual([]);
  await settledPageView(page);
  expect(arrivals('raised after a deploy, first')).toHaveLength(1);
  expect(arrivals('raised after a deploy, second')).toHaveLength(1);
});

for (const chunk of ['client', 'vendor-react']) {
  test(`a 404 of the ${chunk} chunk is reported, naming the asset`, async ({ page }) => {
    const gone = new RegExp(`/_build/assets/${chunk}-[\\w-]{8}\\.js`);
    await page.route(
      (url) => gone.test(url.pathname),
      (route) => route.fulfill({ status: 404, body: 'Not Found' }),
    );
    await page.goto(`${app.server.url}/about`);
    await waitForRecorder(page);

    // Nothing of the app runs: the recorder sends it itself, after the load event.
    const chunkErrors = () =>
      errorEvents(app.ingest.received).filter((event) => event.type === 'ChunkLoadError');
    await expect.poll(chunkErrors, { timeout: 20_000 }).toHaveLength(1);
    const [event] = chunkErrors();
    expect(event?.message).toMatch(gone);
    expect(event?.mechanism).toBe('auto.browser.recorder.asset');
  });
}

test('an error thrown by an inline script before any bundle arrives', async ({ page }) => {
  // An inline script of the page's own (a tag manager, a snippet), right after the recorder.
  await page.route(
    (url) => url.pathname === '/about',
    async (route) => {
      const response = await route.fetch();
      const html = await response.text();
      const code =
        "function throwsInline(){throw new Error('thrown by an inline script')}throwsInline()";
      const nonce = /<script nonce="([^"]+)" id="monitoring-recorder"/.exec(html)?.[1];
      const inline = nonce
        ? `<script nonce="${nonce}">${code}</script>`
        : `<script>${code}</script>`;
      // A page from the page cache allows its inline scripts by hash (decision 1300): a snippet
      // of the page's own would be listed with them.
      const headers = response.headers();
      if (!nonce) {
        const hash = createHash('sha256').update(code).digest('base64');
        headers['content-security-policy'] = (headers['content-security-policy'] ?? '').replace(
          "script-src 'self'",
          `script-src 'self' 'sha256-${hash}'`,
        );
      }
      await route.fulfill({
        response,
        headers,
        body: html.replace(
          /(<script[^>]*id="monitoring-recorder"[^>]*>.*?<\/script>)/s,
          `$1${inline}`,
        ),
      });
    },
  );
  await page.goto(`${app.server.url}/about`);

  await expect.poll(() => arrivals('thrown by an inline script')).toHaveLength(1);
  const [event] = arrivals('thrown by an inline script');
  expect(event?.frames.at(-1)?.function).toBe('throwsInline');
  expect(event?.mechanism).toBe('auto.browser.global_handlers.onerror');
});

/** /, hydrated, the SDK loaded (with a report it sent), its first error and session spent. */
async function openWithSdk(page: Page): Promise<void> {
  await page.goto(`${app.server.url}/`);
  await waitForHydration(page);
  await loadSdkWithAReport(page, () => errorMessages(app.ingest.received));
  await throwInPage(page, 'first error of the session');
  await expect
    .poll(() => errorMessages(app.ingest.received))
    .toContain('first error of the session');
  await expect.poll(() => sessionUpdates(app.ingest.received).at(-1)?.status).toBe('unhandled');
  await recordSentEvents(page);
  await page.waitForLoadState('networkidle');
  app.ingest.reset();
}

/** The exception value an envelope posted to the tunnel carries, if any. */
function valueIn(route: Route): string | undefined {
  return /"value":"([^"]*)"/.exec(route.request().postData() ?? '')?.[1];
}

test('64 reports against a tunnel that answers 503 to half of them all arrive, each once; a 65th is dropped', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await openWithSdk(page);
  // The first try of every even report is answered 503, as the tunnel does when its store is
  // full of waiting writes. Held until the SDK's queue of 64 is full, so that the 65th meets it.
  const firstTries: Route[] = [];
  const refused = new Set<string>();
  await page.route('**/monitoring?*', async (route) => {
    const value = valueIn(route) ?? '';
    const index = /^burst (\d+)$/.exec(value)?.[1];
    if (index === undefined || refused.has(value)) return route.continue();
    firstTries.push(route);
    if (Number(index) % 2 === 0) refused.add(value);
  });

  await page.evaluate(() => {
    for (let index = 0; index < 65; index++) {
      setTimeout(() => {
        throw new Error(`burst ${index}`);
      });
    }
  });
  await expect.poll(() => firstTries.length).toBe(64);
  // The 65th found the queue full: the SDK is done with it, and no request carried it.
  await expect.poll(() => sentEvents(page)).toContain('burst 64');
  for (const route of firstTries) {
    if (refused.has(valueIn(route) ?? '')) await route.fulfill({ status: 503, body: 'busy' });
    else await route.continue();
  }

  const burst = () =>
    errorEvents(app.ingest.received).filter((event) => event.message.startsWith('burst '));
  await expect.poll(() => burst().length, { timeout: 60_000 }).toBe(64);
  await expect.poll(() => sdkOfflineCount(page)).toBe(0);
  await page.waitForLoadState('networkidle');
  const messages = burst().map((event) => event.message);
  expect(new Set(messages).size).toBe(64);
  expect(messages).not.toContain('burst 64');
  expect(new Set(burst().map((event) => event.eventId)).size).toBe(64);
});

test('a 429 with Retry-After: 5 holds back the report made during the back-off, which arrives after it', async ({
  page,
}) => {
  await openWithSdk(page);
  const tries: Array<{ value: string | undefined; at: number }> = [];
  await page.route('**/monitoring?*', async (route) => {
    const value = valueIn(route);
    tries.push({ value, at: Date.now() });
    if (value === 'answered 429' && tries.filter((t) => t.value === value).length === 1) {
      await route.fulfill({ status: 429, headers: { 'Retry-After': '5' }, body: '' });
      return;
    }
    await route.continue();
  });

  await throwInPage(page, 'answered 429');
  await expect.poll(() => sentEvents(page)).toContain('answered 429');
  const limitedAt = tries.find((t) => t.value === 'answered 429')?.at ?? 0;
  await throwInPage(page, 'during the back-off');
  // The SDK is done with it (kept in its offline store) without a request leaving the page.
  await expect.poll(() => sentEvents(page)).toContain('during the back-off');
  expect(tries.filter((t) => t.value === 'during the back-off')).toEqual([]);

  await expect.poll(() => arrivals('during the back-off'), { timeout: 30_000 }).toHaveLength(1);
  await expect.poll(() => arrivals('answered 429')).toHaveLength(1);
  const sentAt = tries.find((t) => t.value === 'during the back-off')?.at ?? 0;
  expect(sentAt - limitedAt).toBeGreaterThanOrEqual(5_000);
  await expect.poll(() => sdkOfflineCount(page)).toBe(0);
  expect(arrivals('during the back-off')).toHaveLength(1);
});

test('20 errors, then the tab closes before the SDK loads: they arrive, now or on the next visit, none twice', async ({
  page,
  context,
}) => {
  // The SDK never arrives in this tab: its chunk is never answered (one that fails would have
  // the recorder send the reports at once, decision 1040).
  await page.route(SDK_CHUNK, () => {});
  await openAbout(page);
  // 5 KB each: more than the 64 KiB the browser lets beacons have in flight, so some leave as
  // the tab closes and the rest on the next visit.
  await page.evaluate(() => {
    for (let index = 0; index < 20; index++) {
      setTimeout(() => {
        throw new Error(`closing ${index} ${'x'.repeat(5_000)}`);
      });
    }
  });
  await expect.poll(() => pendingReports(page)).toBe(20);
  await expect.poll(() => storedReportIds(page)).toHaveLength(20);
  await page.close();

  const closing = () =>
    errorEvents(app.ingest.received).filter((event) => event.message.startsWith('closing '));
  await expect.poll(() => closing().length).toBeGreaterThan(0);
  const next = await context.newPage();
  await next.goto(`${app.server.url}/about`);
  await expect.poll(() => closing().length).toBe(20);
  await settledPageView(next);
  expect(new Set(closing().map((event) => event.message)).size).toBe(20);
  expect(new Set(closing().map((event) => event.eventId)).size).toBe(20);
  expect(closing()).toHaveLength(20);
});
