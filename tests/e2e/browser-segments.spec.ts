/**
 * Traces in the browser: span segments named after routes arrive; the not-found page's and
 * incomplete segments do not. The page's clock is Playwright's, so that a page load ends (and
 * its spans are flushed) exactly when the test moves time on, not after a real wait.
 */
import { expect, type Page, test } from '@playwright/test';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { errorMessages, spans } from '#tests/support/received-envelopes';
import { captureInPage, waitForTracing } from './support/page-sdk';

let ingest: FakeSentry;
let server: BuiltServer;

test.beforeAll(async () => {
  ingest = await startFakeSentry();
  server = await startBuiltServer({ SENTRY_DSN: ingest.dsn(), SENTRY_TRACES_SAMPLE_RATE: '1' });
});

test.afterAll(async () => {
  await server?.stop();
  await ingest?.close();
});

test.beforeEach(() => ingest.reset());

const segments = () => spans(ingest.received).filter((span) => span.isSegment);
const spanEnvelopes = () => ingest.received.filter((r) => r.body.includes('"type":"span"'));

/** Loads a path with the page clock installed, then lets 40 s pass (past the 30 s cap). */
async function loadAndLetTimePass(page: Page, path: string, meanwhile?: () => Promise<void>) {
  let pending = 0;
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/monitoring') pending++;
  });
  page.on('requestfinished', (r) => {
    if (new URL(r.url()).pathname === '/monitoring') pending--;
  });
  // Paused: no timer runs (no page load ends) until the test moves time on.
  const now = Date.now();
  await page.clock.install({ time: now });
  await page.clock.pauseAt(now + 1_000);
  await page.goto(`${server.url}${path}`);
  // Tracing loads after hydration; its page load span starts then (at the navigation's start).
  await waitForTracing(page);
  await meanwhile?.();
  await page.clock.runFor('00:40');
  // A control error goes out after whatever the page load sent: once it has arrived and every
  // tunnel request is answered, everything the page load was going to send has been sent.
  await captureInPage(page, `control after ${path}`);
  await expect.poll(() => errorMessages(ingest.received)).toContain(`control after ${path}`);
  await expect.poll(() => pending).toBe(0);
}

test('a page load of / arrives as a segment named after the route', async ({ page }) => {
  await loadAndLetTimePass(page, '/');
  await expect.poll(() => segments().map((segment) => segment.name)).toEqual(['/']);
  expect(segments()[0]?.attributes).toMatchObject({
    'sentry.op': 'pageload',
    'sentry.segment.name.source': 'route',
    'sentry.idle_span_finish_reason': 'idleTimeout',
  });
});

/** The page loads and navigations received, in order of arrival. */
const routerSegments = () =>
  segments().filter((segment) =>
    ['pageload', 'navigation'].includes(String(segment.attributes['sentry.op'])),
  );
/** The same, as `op name`. */
const routerSegmentNames = () =>
  routerSegments().map((segment) => `${segment.attributes['sentry.op']} ${segment.name}`);

test('the first navigation after a server-rendered page load is traced, and the next one too', async ({
  page,
}) => {
  await loadAndLetTimePass(page, '/', async () => {
    await page.clock.runFor('00:40');
    await page.getByRole('link', { name: 'How errors are handled' }).click();
    await expect(page.getByRole('heading', { name: 'How errors are handled' })).toBeVisible();
    await page.clock.runFor('00:40');
    await page.getByRole('link', { name: 'Home' }).click();
    // The home page's health probe takes a real 400 ms, and React shows its result on a timer:
    // the clock moves in small steps until it is shown, so that the navigation does not time
    // out with the probe's request still open.
    const sampling = page.getByText("Sampling the server's event loop");
    await expect
      .poll(async () => {
        await page.clock.runFor(100);
        return sampling.count();
      })
      .toBe(0);
  });
  await expect
    .poll(routerSegmentNames)
    .toEqual(['pageload /', 'navigation /about', 'navigation /']);
  const [, toAbout] = routerSegments();
  expect(toAbout?.attributes).toMatchObject({
    'sentry.segment.name.source': 'route',
    'sentry.idle_span_finish_reason': 'idleTimeout',
    'url.path': '/about',
  });
});

test('a page load of an unknown path sends no spans at all', async ({ page }) => {
  await loadAndLetTimePass(page, '/no-such-page');
  await expect(page.getByRole('heading')).toBeVisible();
  expect(spanEnvelopes()).toHaveLength(0);
});

// The tracing integration names these after the last route that matched: `/about` for
// `/about/nope`; `/errors` (404 with SENTRY_DSN set) and `/sentry-example-page` (404 without
// example routes) are routes whose loader or beforeLoad throws notFound().
for (const path of ['/about/nope', '/errors']) {
  test(`a page load of the not-found page at ${path} sends no spans`, async ({ page }) => {
    await loadAndLetTimePass(page, path);
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    expect(spanEnvelopes()).toHaveLength(0);
  });
}

test('a navigation to the not-found page sends no spans, while the navigations around it do', async ({
  page,
}) => {
  const aboutLink = page.getByRole('link', { name: 'How errors are handled' });
  const aboutHeading = page.getByRole('heading', { name: 'How errors are handled' });
  await loadAndLetTimePass(page, '/', async () => {
    await page.clock.runFor('00:40');
    await aboutLink.click();
    await expect(aboutHeading).toBeVisible();
    await page.clock.runFor('00:40');
    // No link leads to a missing page: push the URL as a link click would. The tracing
    // integration names this navigation `/about`, the last route that matched.
    await page.evaluate(() => {
      const index = (history.state?.__TSR_index ?? 0) + 1;
      history.pushState({ __TSR_index: index, key: 'nope', __TSR_key: 'nope' }, '', '/about/nope');
    });
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await page.clock.runFor('00:40');
    await aboutLink.click();
    await expect(aboutHeading).toBeVisible();
  });
  await expect
    .poll(routerSegmentNames)
    .toEqual(['pageload /', 'navigation /about', 'navigation /about']);
  // The not-found navigation would have the same name: the paths show which ones arrived.
  const paths = routerSegments().map((segment) => segment.attributes['url.path']);
  expect(paths).toEqual(['/', '/about', '/about']);
});

test('a page load cut short by hiding the tab sends no spans', async ({ page }) => {
  await loadAndLetTimePass(page, '/', () =>
    page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      Object.defineProperty(document, 'hidden', { value: true, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    }),
  );
  expect(spanEnvelopes()).toHaveLength(0);
});
