/**
 * Browser error reporting in Debian's Chromium against the production build, with a fake
 * Sentry ingest behind SENTRY_DSN, through the server's real tunnel (POST /monitoring).
 */

import { expect, type Page, type Request, test } from '@playwright/test';
import { errorEvents, errorMessages, parseEnvelope } from '#tests/support/received-envelopes';
import { appWithFakeSentry } from './support/app-with-fake-sentry';
import { waitForHydration } from './support/hydration';
import { loadSdkWithAReport, recordSentEvents, sentEvents, throwInPage } from './support/page-sdk';
import { TUNNEL_TIMEOUT_MS } from './support/tunnel';

const app = appWithFakeSentry((fake) => ({
  SENTRY_DSN: fake.dsn(),
  SENTRY_TUNNEL_TIMEOUT_MS: String(TUNNEL_TIMEOUT_MS),
  // No traces here: every envelope the ingest gets is an error event or a session.
  SENTRY_TRACES_SAMPLE_RATE: '0',
}));

interface TunnelWatch {
  /** Cuts or restores the page's network. */
  setOffline(offline: boolean): Promise<void>;
  requests: Request[];
  /** True once every tunnel request the page made has been answered (or failed). */
  settled(): boolean;
}

function isTunnelRequest(request: Request): boolean {
  return new URL(request.url()).pathname === '/monitoring';
}

function watchTunnel(page: Page): Omit<TunnelWatch, 'setOffline'> {
  const requests: Request[] = [];
  const finished = new Set<Request>();
  page.on('request', (request) => {
    if (isTunnelRequest(request)) requests.push(request);
  });
  // Only the requests made since watching: one made before may finish after.
  const done = (request: Request) => {
    if (requests.includes(request)) finished.add(request);
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return { requests, settled: () => finished.size === requests.length };
}

/**
 * Opens the home page with the tunnel in place and the SDK loaded, which a page view that is not
 * traced does at its first report (decision 0950); the ingest then forgets that report and the
 * session the page started.
 */
async function openApp(page: Page): Promise<TunnelWatch> {
  await page.goto(`${app.server.url}/`);
  await waitForHydration(page);
  await loadSdkWithAReport(page, () => errorMessages(app.ingest.received));
  await recordSentEvents(page);
  // The session went out at hydration, the message has arrived: the tunnel is idle.
  app.ingest.reset();
  const watch = watchTunnel(page);
  return { ...watch, setOffline: (offline) => page.context().setOffline(offline) };
}

/**
 * Throws a first error and waits for it: the first error of a session also sends a session
 * update, which would otherwise take a place in the transport queue during a test.
 */
async function spendFirstError(page: Page, tunnel: TunnelWatch): Promise<void> {
  await throwInPage(page, 'first error of the session');
  await expect
    .poll(() => errorMessages(app.ingest.received))
    .toContain('first error of the session');
  await expect.poll(() => tunnel.settled()).toBe(true);
  app.ingest.reset();
}

test('an uncaught error reaches the ingest through /monitoring with its message and stack', async ({
  page,
}) => {
  await openApp(page);
  const tunnelRequest = page.waitForRequest(
    (request) => isTunnelRequest(request) && (request.postData() ?? '').includes('"type":"event"'),
  );
  await page.evaluate(() => {
    function throwsInsideAFunction() {
      throw new Error('uncaught in the page');
    }
    setTimeout(throwsInsideAFunction);
  });

  const request = await tunnelRequest;
  expect(request.method()).toBe('POST');
  expect(new URL(request.url()).search).toBe('?o=0&p=1');
  await expect.poll(() => errorMessages(app.ingest.received)).toContain('uncaught in the page');
  const delivered = app.ingest.received.find((r) => r.body.includes('uncaught in the page'));
  expect(delivered?.url).toBe('/api/1/envelope/');
  expect(parseEnvelope(delivered?.body ?? Buffer.alloc(0)).header.dsn).toBe(app.ingest.dsn());
  const [event] = errorEvents(app.ingest.received).filter(
    (e) => e.message === 'uncaught in the page',
  );
  expect(event?.type).toBe('Error');
  expect(event?.frames.at(-1)?.function).toBe('throwsInsideAFunction');
});

test('noise is not reported, while an error sent after it is', async ({ page }) => {
  const tunnel = await openApp(page);
  await page.evaluate(() => {
    // What the browser dispatches for an error in a cross-origin script.
    window.dispatchEvent(
      new ErrorEvent('error', { message: 'Script error.', filename: '', lineno: 0, colno: 0 }),
    );
    window.dispatchEvent(new ErrorEvent('error', { message: 'Script error' }));
    // The two ResizeObserver notices, as the browser dispatches them and as thrown errors.
    window.dispatchEvent(
      new ErrorEvent('error', {
        message: 'ResizeObserver loop completed with undelivered notifications.',
      }),
    );
    window.dispatchEvent(
      new ErrorEvent('error', { message: 'ResizeObserver loop limit exceeded' }),
    );
    setTimeout(() => {
      throw new Error('ResizeObserver loop limit exceeded');
    });
    setTimeout(() => {
      throw new Error('ResizeObserver loop completed with undelivered notifications.');
    });
    // Errors thrown in browser extensions' scripts.
    for (const url of [
      'chrome-extension://abcdefghijklmnop/content.js',
      'moz-extension://0a1b2c3d/inject.js',
      'safari-web-extension://ABCDEF/script.js',
      'chrome://new-tab-page/shared.js',
    ]) {
      const error = new Error(`thrown in ${url}`);
      error.stack = `Error: thrown in ${url}\n    at inject (${url}:10:5)\n    at ${url}:20:3`;
      setTimeout(() => {
        throw error;
      });
    }
    // The router's control flow, as redirect() and notFound() build it in Router 1.120.
    setTimeout(() => {
      throw { isRedirect: true, to: '/about', statusCode: 307, headers: {}, reloadDocument: false };
    });
    Promise.reject({ isNotFound: true });
  });
  await throwInPage(page, 'control error after the noise');

  await expect
    .poll(() => errorMessages(app.ingest.received))
    .toContain('control error after the noise');
  await expect.poll(() => tunnel.settled()).toBe(true);
  expect(errorMessages(app.ingest.received)).toEqual(['control error after the noise']);
});

test('"Script error." with no file name, no line and no error is not reported', async ({
  page,
}) => {
  const tunnel = await openApp(page);
  await page.evaluate(() =>
    window.dispatchEvent(new ErrorEvent('error', { message: 'Script error.' })),
  );
  await throwInPage(page, 'control error after the bare script error');

  await expect
    .poll(() => errorMessages(app.ingest.received))
    .toContain('control error after the bare script error');
  await expect.poll(() => tunnel.settled()).toBe(true);
  expect(errorMessages(app.ingest.received)).toEqual(['control error after the bare script error']);
});

test('"Script error." with a file name and line is reported, with that location', async ({
  page,
}) => {
  await openApp(page);
  const filename = `${app.server.url}/_build/assets/widget.js`;
  await page.evaluate(
    (file) =>
      window.dispatchEvent(
        new ErrorEvent('error', { message: 'Script error.', filename: file, lineno: 12, colno: 7 }),
      ),
    filename,
  );

  await expect.poll(() => errorMessages(app.ingest.received)).toContain('Script error.');
  const [event] = errorEvents(app.ingest.received).filter((e) => e.message === 'Script error.');
  expect(event?.frames).toEqual([expect.objectContaining({ filename, lineno: 12 })]);
});

test('"Script error." with an error and its stack is reported, with that stack', async ({
  page,
}) => {
  await openApp(page);
  await page.evaluate(() => {
    function failsWithAScriptErrorMessage() {
      return new Error('Script error.');
    }
    const error = failsWithAScriptErrorMessage();
    window.dispatchEvent(new ErrorEvent('error', { message: 'Script error.', error }));
  });

  await expect.poll(() => errorMessages(app.ingest.received)).toContain('Script error.');
  const [event] = errorEvents(app.ingest.received).filter((e) => e.message === 'Script error.');
  expect(event?.frames.at(-1)?.function).toBe('failsWithAScriptErrorMessage');
});

test('an error thrown 101 calls deep arrives with the 50 frames nearest to the throw', async ({
  page,
}) => {
  await openApp(page);
  await page.evaluate(() => {
    // Chrome keeps 10 frames by default (the SDK raises it to 50); keep them all here.
    Error.stackTraceLimit = 500;
    function recurse(depth: number): never {
      if (depth === 0) throw new Error('deep error');
      return recurse(depth - 1);
    }
    setTimeout(() => recurse(100));
  });

  await expect.poll(() => errorMessages(app.ingest.received)).toContain('deep error');
  const [event] = errorEvents(app.ingest.received).filter((e) => e.message === 'deep error');
  expect(event?.frames).toHaveLength(50);
  expect(event?.frames.every((frame) => frame.function === 'recurse')).toBe(true);
});

test('with the ingest holding requests open, a burst of 100 errors delivers 64 and drops the rest', async ({
  page,
}) => {
  // 64 held requests through Chrome's 6 connections per host: about 11 rounds of the tunnel's
  // 1.5 s timeout, on top of the page load; then the 504s are tried again from the offline store.
  test.setTimeout(120_000);
  const tunnel = await openApp(page);
  await spendFirstError(page, tunnel);
  app.ingest.behave({ kind: 'hang' });

  await page.evaluate(() => {
    for (let index = 0; index < 100; index++) {
      setTimeout(() => {
        throw new Error(`burst ${index}`);
      });
    }
  });
  await app.ingest.waitForRequests(64, 60_000);
  // The tunnel gives up on each held request (504), which frees the SDK's queue again.
  await expect.poll(() => tunnel.settled(), { timeout: 60_000 }).toBe(true);
  app.ingest.behave({ kind: 'ok' });
  const burst = () =>
    errorEvents(app.ingest.received).filter((event) => event.message.startsWith('burst '));
  // A 504 may have reached Sentry, or not: each is tried again, under its own event id, which
  // Sentry (and the local inbox) keeps once (decision 0510).
  await expect
    .poll(() => new Set(burst().map((event) => event.eventId)).size, { timeout: 60_000 })
    .toBe(64);
  await throwInPage(page, 'control error after the burst');
  await expect
    .poll(() => errorMessages(app.ingest.received))
    .toContain('control error after the burst');
  await expect.poll(() => tunnel.settled()).toBe(true);

  const messages = new Set(burst().map((event) => event.message));
  expect(messages.size).toBe(64);
  expect(new Set(burst().map((event) => event.eventId)).size).toBe(64);
});

test('after a 429 without headers, the next error within seconds is not sent', async ({ page }) => {
  const tunnel = await openApp(page);
  await spendFirstError(page, tunnel);
  app.ingest.behave({ kind: 'status', status: 429 });
  await throwInPage(page, 'answered with 429');
  await expect.poll(() => errorMessages(app.ingest.received)).toContain('answered with 429');
  await expect.poll(() => sentEvents(page)).toContain('answered with 429');
  app.ingest.behave({ kind: 'ok' });
  const requestsBefore = tunnel.requests.length;

  await throwInPage(page, 'during the back-off');
  // The SDK is done with it (its transport answered) without a request leaving the page.
  await expect.poll(() => sentEvents(page)).toContain('during the back-off');
  expect(tunnel.requests).toHaveLength(requestsBefore);
  expect(errorMessages(app.ingest.received)).not.toContain('during the back-off');
});

test('the back-off after a 429 without headers lasts 60 s', async ({ page }) => {
  await page.clock.install();
  const tunnel = await openApp(page);
  await spendFirstError(page, tunnel);
  app.ingest.behave({ kind: 'status', status: 429 });
  await throwInPage(page, 'answered with 429');
  await expect.poll(() => sentEvents(page)).toContain('answered with 429');
  app.ingest.behave({ kind: 'ok' });

  await page.clock.fastForward('00:58');
  await throwInPage(page, 'after 58 s');
  await expect.poll(() => sentEvents(page)).toContain('after 58 s');
  await page.clock.fastForward('00:03');
  await throwInPage(page, 'after 61 s');

  await expect.poll(() => errorMessages(app.ingest.received)).toContain('after 61 s');
  expect(errorMessages(app.ingest.received)).not.toContain('after 58 s');
});

test('an error raised offline is delivered once the network is back', async ({ page }) => {
  const tunnel = await openApp(page);
  await spendFirstError(page, tunnel);
  await tunnel.setOffline(true);

  await throwInPage(page, 'raised offline');
  // The transport failed and the offline store took the envelope.
  await expect.poll(() => sentEvents(page)).toContain('raised offline');
  expect(errorMessages(app.ingest.received)).not.toContain('raised offline');

  await tunnel.setOffline(false);
  await expect
    .poll(() => errorMessages(app.ingest.received), { timeout: 15_000 })
    .toContain('raised offline');
});
