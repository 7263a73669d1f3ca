/**
 * For a traced page view (here every one), the Sentry SDK, its offline store and tracing load
 * after hydration (app/monitoring/sdk-loader.ts and tracing.ts, in the `sdk-loader`,
 * `vendor-sentry`, `tracing` and `sentry-tracing` chunks); errors are caught from the first
 * script on by the page's recorder (app/monitoring/recorder/recorder.ts). Decisions 0830, 0910,
 * 0950 (sdk-on-demand.spec.ts: a page view that is not traced).
 * The tests hold back the route's chunk (so the page cannot hydrate) or the late chunks (so the
 * SDK cannot start) with `page.route`, to show what happens before they arrive.
 */

import { expect, type Page, test } from '@playwright/test';
import { LATE_MONITORING_DEADLINE_MS } from '#app/monitoring/start-browser-monitoring';
import {
  errorEvents,
  errorMessages,
  parseEnvelope,
  sessionUpdates,
  spans,
} from '#tests/support/received-envelopes';
import { appWithFakeSentry } from './support/app-with-fake-sentry';
import { waitUntilReactOwns } from './support/hydration';
import {
  captureInPage,
  pendingReports,
  throwInPage,
  tracingStarted,
  waitForRecorder,
  waitForTracing,
} from './support/page-sdk';
import { storedReportIds } from './support/recorder-store';
import { TUNNEL_TIMEOUT_MS } from './support/tunnel';

const app = appWithFakeSentry((fake) => ({
  SENTRY_DSN: fake.dsn(),
  SENTRY_TUNNEL_TIMEOUT_MS: String(TUNNEL_TIMEOUT_MS),
  SENTRY_TRACES_SAMPLE_RATE: '1',
}));

const LATE_CHUNK =
  /\/_build\/assets\/(sdk-loader|vendor-sentry|tracing|sentry-tracing)-[\w-]+\.js$/;
const ABOUT_CHUNK = /\/_build\/assets\/about-[\w-]+\.js$/;

/** Holds back the page's requests for matching URLs until released, then lets them through or fails them. */
async function holdRequests(page: Page, url: RegExp) {
  let release: (outcome: 'arrive' | 'fail') => void = () => {};
  const released = new Promise<'arrive' | 'fail'>((resolve) => {
    release = resolve;
  });
  const held: string[] = [];
  await page.route(url, async (route) => {
    held.push(new URL(route.request().url()).pathname);
    if ((await released) === 'fail') await route.abort('connectionreset');
    else await route.continue();
  });
  return { held, release };
}

const navLink = (page: Page) => page.getByRole('link', { name: 'How errors are handled' });

/** /about, hydrated, with the late chunks (the SDK, tracing) requested but held back. */
async function hydratedAboutWithSdkHeld(page: Page) {
  const late = await holdRequests(page, LATE_CHUNK);
  await page.goto(`${app.server.url}/about`, { waitUntil: 'commit' });
  await waitUntilReactOwns(navLink(page));
  await expect.poll(() => late.held.length).toBeGreaterThan(0);
  return late;
}

test('an error thrown before hydration waits for the SDK, and arrives with its own time and stack', async ({
  page,
}) => {
  const late = await holdRequests(page, LATE_CHUNK);
  const route = await holdRequests(page, ABOUT_CHUNK);
  await page.goto(`${app.server.url}/about`, { waitUntil: 'commit' });
  await waitForRecorder(page);
  // The page cannot hydrate without its route's chunk.
  await expect.poll(() => route.held.length).toBeGreaterThan(0);

  const thrownAt = await page.evaluate(() => {
    function throwsBeforeHydration() {
      throw new Error('thrown before hydration');
    }
    setTimeout(throwsBeforeHydration);
    return Date.now() / 1000;
  });
  await expect.poll(() => pendingReports(page)).toBe(1);
  expect(late.held).toEqual([]);

  route.release('arrive');
  await waitUntilReactOwns(navLink(page));
  await expect.poll(() => late.held.length).toBeGreaterThan(0);
  const releasedAt = await page.evaluate(() => Date.now() / 1000);
  expect(await tracingStarted(page)).toBe(false);

  late.release('arrive');
  await expect.poll(() => errorMessages(app.ingest.received)).toContain('thrown before hydration');
  await waitForTracing(page);
  const [event] = errorEvents(app.ingest.received).filter(
    (e) => e.message === 'thrown before hydration',
  );
  // The SDK's own global handler made it, from the original error: its stack is the throw's.
  expect(event?.frames.at(-1)?.function).toBe('throwsBeforeHydration');
  expect(event?.mechanism).toBe('auto.browser.global_handlers.onerror');
  // When it was thrown, not when the SDK arrived.
  expect(event?.timestamp).toBeGreaterThanOrEqual(thrownAt - 0.01);
  expect(event?.timestamp).toBeLessThan(releasedAt);
});

test('the page load trace keeps the navigation start and the route name though tracing starts late', async ({
  page,
}) => {
  const late = await hydratedAboutWithSdkHeld(page);
  late.release('arrive');
  await waitForTracing(page);

  const pageLoads = () =>
    spans(app.ingest.received).filter(
      (span) => span.isSegment && span.attributes['sentry.op'] === 'pageload',
    );
  // The page load ends after a second without activity; its spans follow half a second later.
  await expect.poll(pageLoads, { timeout: 20_000 }).toHaveLength(1);
  const [pageLoad] = pageLoads();
  expect(pageLoad?.name).toBe('/about');
  expect(pageLoad?.attributes['sentry.segment.name.source']).toBe('route');

  const timing = await page.evaluate(() => ({
    timeOrigin: performance.timeOrigin,
    lateChunksArrived: performance
      .getEntriesByType('resource')
      .filter((entry) => /\/(sdk-loader|vendor-sentry|tracing|sentry-tracing)-/.test(entry.name))
      .map((entry) => (entry as PerformanceResourceTiming).responseEnd),
  }));
  const startAfterNavigationMs = (pageLoad?.startTimestamp ?? 0) * 1000 - timing.timeOrigin;
  expect(startAfterNavigationMs).toBeLessThanOrEqual(5);
  expect(startAfterNavigationMs).toBeGreaterThan(-1_000);
  expect(timing.lateChunksArrived).toHaveLength(4);
  for (const arrived of timing.lateChunksArrived) {
    expect(arrived).toBeGreaterThan(startAfterNavigationMs + 5);
  }
  // The SDK's own envelopes go out through the browser's fetch, not the traced one.
  const tunnelSpans = spans(app.ingest.received).filter((span) =>
    String(span.attributes['url.full'] ?? span.attributes['http.url'] ?? '').includes(
      '/monitoring',
    ),
  );
  expect(tunnelSpans).toEqual([]);
});

test('a page load left before tracing arrives is not traced under the next route name', async ({
  page,
}) => {
  // Paused: no page load ends until the test moves time on.
  const now = Date.now();
  await page.clock.install({ time: now });
  await page.clock.pauseAt(now + 1_000);
  let pending = 0;
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/monitoring') pending++;
  });
  page.on('requestfinished', (request) => {
    if (new URL(request.url()).pathname === '/monitoring') pending--;
  });
  const late = await holdRequests(page, LATE_CHUNK);
  await page.goto(`${app.server.url}/`, { waitUntil: 'commit' });
  await waitUntilReactOwns(navLink(page));
  await navLink(page).click();
  await expect(page.getByRole('heading', { name: 'How errors are handled' })).toBeVisible();

  late.release('arrive');
  await waitForTracing(page);
  await page.clock.runFor('00:40');
  // Whatever the page load was going to send has gone once a later error has, and every
  // tunnel request is answered.
  await captureInPage(page, 'control after leaving /');
  await expect.poll(() => errorMessages(app.ingest.received)).toContain('control after leaving /');
  await expect.poll(() => pending).toBe(0);
  const pageLoads = spans(app.ingest.received).filter(
    (span) => span.isSegment && span.attributes['sentry.op'] === 'pageload',
  );
  expect(pageLoads).toEqual([]);
});

test('when the SDK cannot be loaded, the recorder sends the errors itself while the page lives', async ({
  page,
}) => {
  const late = await hydratedAboutWithSdkHeld(page);
  await throwInPage(page, 'thrown while the SDK fails to load');
  await expect.poll(() => pendingReports(page)).toBe(1);
  expect(errorMessages(app.ingest.received)).toEqual([]);

  const warned = page.waitForEvent('console', (message) =>
    message.text().includes('the Sentry SDK did not load'),
  );
  late.release('fail');
  await warned;
  // The tunnel is there: what waited leaves now, and what is thrown later as it comes
  // (decision 1040), not only as the visitor leaves.
  await expect
    .poll(() => errorMessages(app.ingest.received))
    .toEqual(['thrown while the SDK fails to load']);
  await throwInPage(page, 'thrown after the SDK failed to load');
  await expect
    .poll(() => errorMessages(app.ingest.received).toSorted())
    .toEqual(['thrown after the SDK failed to load', 'thrown while the SDK fails to load']);
  await expect.poll(() => pendingReports(page)).toBe(0);
  const [event] = errorEvents(app.ingest.received).filter(
    (e) => e.message === 'thrown while the SDK fails to load',
  );
  expect(event?.type).toBe('Error');
  expect(event?.frames.length).toBeGreaterThan(0);
  // The page's session goes unhandled with the first uncaught error, as the SDK's would; once.
  await expect.poll(() => sessionUpdates(app.ingest.received)).toHaveLength(2);
  const [started, ...updates] = sessionUpdates(app.ingest.received);
  expect(started).toMatchObject({ init: true, status: 'ok', errors: 0 });
  expect(updates).toEqual([
    expect.objectContaining({ sid: started?.sid, init: false, status: 'unhandled', errors: 1 }),
  ]);
  // Nothing is left for the beacons as the visitor leaves.
  await expect.poll(() => storedReportIds(page)).toEqual([]);
});

test('an error thrown before the SDK arrives is delivered when the visitor leaves first', async ({
  page,
}) => {
  const late = await hydratedAboutWithSdkHeld(page);
  await page.evaluate(() => {
    function throwsBeforeLeaving() {
      throw new Error('thrown just before leaving');
    }
    setTimeout(throwsBeforeLeaving);
    // Noise is still not reported, nor kept waiting.
    window.dispatchEvent(
      new ErrorEvent('error', { message: 'ResizeObserver loop limit exceeded' }),
    );
  });
  await expect.poll(() => pendingReports(page)).toBe(1);

  // The SDK never arrives: the page is left.
  await page.goto('about:blank');
  await expect
    .poll(() => errorMessages(app.ingest.received))
    .toContain('thrown just before leaving');
  expect(errorMessages(app.ingest.received)).toEqual(['thrown just before leaving']);
  const [event] = errorEvents(app.ingest.received);
  expect(event?.frames.at(-1)?.function).toBe('throwsBeforeLeaving');
  expect(event?.mechanism).toBe('auto.browser.global_handlers.onerror');
  // The crash counts in release health although the SDK never came.
  await expect.poll(() => sessionUpdates(app.ingest.received)).toHaveLength(2);
  const [started, ended] = sessionUpdates(app.ingest.received);
  expect(ended).toMatchObject({ sid: started?.sid, init: false, status: 'unhandled', errors: 1 });
  late.release('fail');
});

test('the session still goes unhandled when the errors sent on leaving exceed what beacons may carry', async ({
  page,
}) => {
  const late = await hydratedAboutWithSdkHeld(page);
  // Twenty errors of 5 KB: more than the 64 KiB Chromium lets beacons have in flight at once.
  await page.evaluate(() => {
    for (let i = 0; i < 20; i++) {
      setTimeout(() => {
        throw new Error(`large error ${i} ${'x'.repeat(5_000)}`);
      });
    }
  });
  await expect.poll(() => pendingReports(page)).toBe(20);

  await page.goto('about:blank');
  await expect.poll(() => sessionUpdates(app.ingest.received)).toHaveLength(2);
  const [started, ended] = sessionUpdates(app.ingest.received);
  expect(ended).toMatchObject({ sid: started?.sid, init: false, status: 'unhandled', errors: 1 });
  // Some of the errors, the first ones, got through beside it.
  await expect.poll(() => errorMessages(app.ingest.received).length).toBeGreaterThan(0);
  late.release('fail');
});

test('when the page never hydrates, the late part loads at its deadline and the failure arrives', async ({
  page,
}) => {
  // Paused: the deadline passes only when the test says so.
  const now = Date.now();
  await page.clock.install({ time: now });
  await page.clock.pauseAt(now + 1_000);
  // Hydration fails outright: without its dehydrated state Start throws before any error
  // boundary exists, and React gives up on the whole document (an error in the root document
  // itself would do the same).
  await page.route(
    (url) => url.pathname === '/about',
    async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replaceAll('__TSR_SSR__', '__TSR_SSR_GONE__');
      await route.fulfill({ response, body: html });
    },
  );
  const lateRequests: string[] = [];
  page.on('request', (request) => {
    if (LATE_CHUNK.test(new URL(request.url()).pathname)) lateRequests.push(request.url());
  });
  const failed = page.waitForEvent('pageerror');
  await page.goto(`${app.server.url}/about`, { waitUntil: 'commit' });
  const failure = (await failed).message;
  expect(failure).toBe('Invariant failed');
  await waitForRecorder(page);
  expect(lateRequests).toEqual([]);

  await page.clock.runFor(LATE_MONITORING_DEADLINE_MS);
  await expect.poll(() => errorMessages(app.ingest.received)).toContain(failure);
  expect(lateRequests).not.toEqual([]);
  expect(await navLink(page).count()).toBe(0);
});

test('a CSP violation before hydration is reported once the SDK arrives', async ({ page }) => {
  const route = await holdRequests(page, ABOUT_CHUNK);
  await page.goto(`${app.server.url}/about`, { waitUntil: 'commit' });
  await waitForRecorder(page);
  await expect.poll(() => route.held.length).toBeGreaterThan(0);

  await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'window.__injected = true';
    document.body.append(script);
  });
  const message = 'Content-Security-Policy: script-src-elem blocked inline';
  await expect.poll(() => pendingReports(page)).toBe(1);

  route.release('arrive');
  const messages = () =>
    app.ingest.received.flatMap((request) =>
      parseEnvelope(request.body)
        .items.filter((item) => item.header.type === 'event')
        .map((item) => (item.payload as { message?: string }).message),
    );
  await expect.poll(messages).toContain(message);
});

/**
 * Runs in the page before its scripts: for each late chunk the page starts to load (vite's
 * preload adds a `<link rel="modulepreload">` for it in the same task as the `import()`), notes
 * whether React owned the page's content (`<main>`, inside the route's Suspense boundary, which
 * hydrates after the document's shell) at that moment.
 */
function watchLateChunkRequests() {
  const requests: Array<{ chunk: string; contentHydrated: boolean }> = [];
  (window as unknown as { __lateChunkRequests: typeof requests }).__lateChunkRequests = requests;
  new MutationObserver((records) => {
    const main = document.querySelector('main');
    const contentHydrated =
      main !== null && Object.keys(main).some((key) => key.startsWith('__reactProps'));
    for (const record of records) {
      for (const node of record.addedNodes) {
        const url = (node as HTMLLinkElement).href || (node as HTMLScriptElement).src || '';
        const chunk = /\/(sdk-loader|vendor-sentry|tracing|sentry-tracing)-[\w-]+\.js$/.exec(
          url,
        )?.[1];
        if (chunk) requests.push({ chunk, contentHydrated });
      }
    }
  }).observe(document, { childList: true, subtree: true });
}

test('the late chunks are requested only once React owns the page', async ({ page }) => {
  await page.addInitScript(watchLateChunkRequests);
  await page.goto(`${app.server.url}/about`);
  await waitForTracing(page);

  const requests = await page.evaluate(
    () =>
      (
        window as unknown as {
          __lateChunkRequests: Array<{ chunk: string; contentHydrated: boolean }>;
        }
      ).__lateChunkRequests,
  );
  expect(requests.map((request) => request.chunk).sort()).toEqual([
    'sdk-loader',
    'sentry-tracing',
    'tracing',
    'vendor-sentry',
  ]);
  expect(requests.filter((request) => !request.contentHydrated)).toEqual([]);
});
