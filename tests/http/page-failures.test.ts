/**
 * Server-side failures over real HTTP against the production build: status, what the body
 * carries (never the error's text), one JSON log line, one Sentry event tagged with the digest.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';
import type { FakeSentry, ReceivedRequest } from '#tests/fixtures/fake-sentry';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { clientChunks } from '#tests/support/client-build';
import { exampleServerWithFakeSentry } from '#tests/support/example-server-with-fake-sentry';
import { readInbox, tagOf } from '#tests/support/inbox-database';
import { parseEnvelope } from '#tests/support/received-envelopes';
import { FAILING_EXAMPLE_FN } from '#tests/support/server-function-paths';
import { waitFor } from '#tests/support/wait-for';

// Markers planted in the thrown messages (see the example routes): stand-ins for secrets.
const SSR_SECRET = 'ssr-loader-secret-4b1d';
const ROOT_SECRET = 'root-before-load-secret-9c2e';

interface LogRecord {
  level: string;
  digest: string;
  route: string;
  method: string;
  url?: string;
  phase: string;
  message: string;
  stack?: string;
}

function failureLog(server: BuiltServer): LogRecord[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{"level":"error"'))
    .map((line) => JSON.parse(line) as LogRecord);
}

async function logOf(server: BuiltServer, digest: string): Promise<LogRecord[]> {
  await server.waitForOutput(new RegExp(`"digest":"${digest}"`));
  // A second line for the same failure would be on stderr before the barrier's line.
  await server.stderrBarrier();
  return failureLog(server).filter((record) => record.digest === digest);
}

/** The fields of a Sentry event these tests read. */
interface SentryEvent {
  tags?: Record<string, string>;
  request?: { method?: string; url?: string };
  exception: { values: Array<{ value: string }> };
}

/** The event items of the envelopes a fake ingest received. */
function eventsIn(requests: ReceivedRequest[]): SentryEvent[] {
  return requests.flatMap((request) => eventsOfEnvelope(request.body));
}

function eventsOfEnvelope(body: Buffer): SentryEvent[] {
  return parseEnvelope(body)
    .items.filter((item) => item.header.type === 'event')
    .map((item) => item.payload as SentryEvent);
}

async function sentryEventFor(sentry: FakeSentry, digest: string) {
  for (let count = 1; ; count++) {
    const requests = await sentry.waitForRequests(count);
    const event = eventsIn(requests).find((e) => e.tags?.digest === digest);
    if (event) return event;
  }
}

function digestInPage(html: string): string {
  const match = /Digest: ([0-9a-f]{10})/.exec(html);
  if (!match) throw new Error(`No digest on the page:\n${html.slice(0, 2000)}`);
  return match[1] as string;
}

function callFailingFunction(server: BuiltServer, data: unknown) {
  return fetch(`${server.url}${FAILING_EXAMPLE_FN}?createServerFn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ data, context: {} }),
  });
}

describe('with example routes and a Sentry DSN', () => {
  const app = exampleServerWithFakeSentry();

  it('a loader failing during SSR answers 500 with the generic message and a digest only', async () => {
    const response = await fetch(`${app.server.url}/sentry-example-page/ssr-error`);
    const html = await response.text();
    expect(response.status).toBe(500);
    expect(html).toContain(SERVER_FAILURE_MESSAGE);
    const digest = digestInPage(html);
    // The whole body, hydration data included.
    expect(html).not.toContain(SSR_SECRET);
    expect(html).not.toContain('loader failed');
    expect(html).toContain(`\\"digest\\":\\"${digest}\\"`);

    const log = await logOf(app.server, digest);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      level: 'error',
      route: '/sentry-example-page/ssr-error',
      method: 'GET',
      phase: 'loader',
    });
    expect(log[0]?.message).toContain(SSR_SECRET);
    expect(log[0]?.stack).toContain('Error:');

    const event = await sentryEventFor(app.sentry, digest);
    expect(event.tags).toMatchObject({ digest, route: '/sentry-example-page/ssr-error' });
    // Where Sentry and the inbox look for the page: the log line's URL, on the server's origin.
    expect(event.request).toMatchObject({ method: 'GET', url: `${app.server.url}${log[0]?.url}` });
    expect(event.request?.url).toBe(`${app.server.url}/sentry-example-page/ssr-error`);
    expect(event.exception.values[0]?.value).toContain(SSR_SECRET);
    expect(app.sentry.received[0]?.url).toMatch(/^\/api\/42\/envelope\//);
  });

  it('development’s overlay is not in the build: no route gives a failure by its digest, no chunk shows one', async () => {
    const html = await (await fetch(`${app.server.url}/sentry-example-page/ssr-error`)).text();
    const digest = digestInPage(html);
    // Where `vinxi dev` answers the page's question (build/dev-overlay.ts).
    const asked = await fetch(`${app.server.url}/_build/__dev-errors?digest=${digest}`);
    const body = await asked.text();
    expect(asked.status).toBe(404);
    expect(body).not.toContain(SSR_SECRET);
    // Nor any code of the overlay's browser half (app/monitoring/dev-overlay.ts).
    const withOverlayCode = clientChunks().filter(({ code }) =>
      ['vite-error-overlay', '__dev-errors', 'dev overlay'].some((marker) => code.includes(marker)),
    );
    expect(withOverlayCode.map(({ name }) => name)).toEqual([]);
  });

  it('the same failure twice has the same digest, and each is logged', async () => {
    const linesBefore = app.server.output().split('\n').length;
    const first = digestInPage(
      await (await fetch(`${app.server.url}/sentry-example-page/ssr-error`)).text(),
    );
    const second = digestInPage(
      await (await fetch(`${app.server.url}/sentry-example-page/ssr-error`)).text(),
    );
    expect(second).toBe(first);
    // Two more lines with this digest than before, whatever earlier tests logged.
    const logged = () =>
      app.server
        .output()
        .split('\n')
        .slice(linesBefore - 1)
        .filter((line) => line.includes(`"digest":"${first}"`)).length;
    await expect.poll(logged).toBe(2);
  });

  it('a failing root beforeLoad answers 500 and reaches the browser as an error', async () => {
    const response = await fetch(`${app.server.url}/about?example-failure=root-before-load`);
    const html = await response.text();
    expect(response.status).toBe(500);
    expect(html).toContain(SERVER_FAILURE_MESSAGE);
    const digest = digestInPage(html);
    expect(html).not.toContain(ROOT_SECRET);
    expect(html).not.toContain('beforeLoad failed');
    // Start left the root match out of the hydration data, so the browser rendered the page.
    const rootMatch = /initMatch\((\{"id":"__root__".*?\})\)/.exec(html);
    expect(rootMatch?.[1]).toContain('"status":"error"');
    expect(rootMatch?.[1]).toContain(digest);

    const log = await logOf(app.server, digest);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ route: '__root__', method: 'GET', phase: 'beforeLoad' });
    const event = await sentryEventFor(app.sentry, digest);
    expect(event.exception.values[0]?.value).toContain(ROOT_SECRET);
  });

  it('a component failing while rendering on the server answers 500 with a digest only', async () => {
    const response = await fetch(`${app.server.url}/sentry-example-page?example-failure=render`);
    const html = await response.text();
    expect(response.status).toBe(500);
    expect(html).not.toContain('render-secret-5e7f');
    expect(html).not.toContain('thrown while rendering');
    // React marks the failed boundary with our digest and renders it again in the browser.
    const digest = /data-dgst="([0-9a-f]{10})"/.exec(html)?.[1] as string;
    expect(digest).toBeDefined();
    const log = await logOf(app.server, digest);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      phase: 'render',
      route: '/sentry-example-page/',
      method: 'GET',
    });
    const event = await sentryEventFor(app.sentry, digest);
    expect(event.exception.values[0]?.value).toContain('render-secret-5e7f');
  });

  it('a failing server function answers 500 with the digest and no message', async () => {
    const marker = 'fn-secret-77aa';
    const response = await callFailingFunction(app.server, { label: marker });
    const body = await response.text();
    expect(response.status).toBe(500);
    expect(body).not.toContain(marker);
    const error = JSON.parse(body).$error;
    expect(error.message).toBe(SERVER_FAILURE_MESSAGE);
    expect(error.digest).toMatch(/^[0-9a-f]{10}$/);

    const log = await logOf(app.server, error.digest);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ phase: 'server-function', method: 'POST' });
    expect(log[0]?.message).toContain(marker);
    const event = await sentryEventFor(app.sentry, error.digest);
    expect(event.tags?.digest).toBe(error.digest);
    // Logged once: our JSON line is the only output about it (Start's own handler prints
    // "Server Fn Error!" and the error for failures it answers itself).
    const mentions = app.server
      .output()
      .split('\n')
      .filter((line) => line.includes(error.digest) || line.includes('Server Fn Error'));
    expect(mentions).toHaveLength(1);
  });

  it('invalid server function input is the caller’s: 400 naming the field, no value, no report', async () => {
    const marker = `invalid-input-secret-${'x'.repeat(40)}`;
    const start = app.server.output().length;
    const response = await callFailingFunction(app.server, { label: marker });
    const body = await response.text();
    expect(response.status).toBe(400);
    expect(body).toBe('invalid input: label: Invalid length: Expected <=40 but received 61');
    // Not a failure: no JSON failure line, and no event ahead of the next real failure's.
    await app.server.stderrBarrier();
    expect(app.server.output().slice(start)).not.toContain('{"level":"error"');
    expect(app.server.output()).not.toContain('invalid-input-secret');
    const failing = await callFailingFunction(app.server, { label: 'after invalid input' });
    const { digest } = JSON.parse(await failing.text()).$error;
    await sentryEventFor(app.sentry, digest);
    expect(
      app.sentry.received.some((request) => request.body.includes('invalid-input-secret')),
    ).toBe(false);
  });

  it('a visitor who leaves mid-stream is not logged as a failure', async () => {
    const before = failureLog(app.server).length;
    // The home page streams its slow health section after the shell: leave after the shell.
    const client = new AbortController();
    const response = await fetch(`${app.server.url}/`, {
      signal: client.signal,
      headers: { 'user-agent': BROWSER_USER_AGENT },
    });
    const reader = response.body?.getReader();
    await reader?.read();
    client.abort();
    await reader?.cancel().catch(() => {});
    // A failure logged after it marks the point where the server has dealt with the abort.
    const digest = digestInPage(
      await (await fetch(`${app.server.url}/sentry-example-page/ssr-error`)).text(),
    );
    await logOf(app.server, digest);
    expect(failureLog(app.server).length).toBe(before + 1);
  });

  it('not-found is a 404 and not logged as an error', async () => {
    const before = failureLog(app.server).length;
    const response = await fetch(`${app.server.url}/no-such-page`);
    expect(response.status).toBe(404);
    await response.text();
    // A page that loads fine afterwards proves the server moved on; nothing new was logged.
    expect((await fetch(`${app.server.url}/about`)).status).toBe(200);
    await app.server.stderrBarrier();
    expect(failureLog(app.server).length).toBe(before);
  });
});

describe('on a server just started', () => {
  // Each test starts a server of its own: the failure must be the first of its kind after a
  // start, when Start still imports the server function's chunk or the page's route chunk.
  let server: BuiltServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('the first failing server function call has the digest of the later ones', async () => {
    server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: 'true' });
    const digests: string[] = [];
    for (let call = 0; call < 3; call++) {
      const response = await callFailingFunction(server, { label: 'first after start' });
      expect(response.status).toBe(500);
      digests.push(JSON.parse(await response.text()).$error.digest);
    }
    expect(digests[0]).toMatch(/^[0-9a-f]{10}$/);
    expect(digests).toEqual([digests[0], digests[0], digests[0]]);
  });

  it('the first SSR loader failure has the digest of the later ones', async () => {
    server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: 'true' });
    const digests: string[] = [];
    for (let load = 0; load < 3; load++) {
      const response = await fetch(`${server.url}/sentry-example-page/ssr-error`);
      expect(response.status).toBe(500);
      digests.push(digestInPage(await response.text()));
    }
    expect(digests).toEqual([digests[0], digests[0], digests[0]]);
  });
});

describe('in local inbox mode', () => {
  let server: BuiltServer;
  const inboxDir = join(mkdtempSync(join(tmpdir(), 'failures-inbox-')), 'inbox');

  beforeAll(async () => {
    server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: '1', MONITORING_INBOX_DIR: inboxDir });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('reports the failure to the local inbox, tagged with the digest', async () => {
    const response = await fetch(`${server.url}/sentry-example-page/ssr-error`);
    expect(response.status).toBe(500);
    const digest = digestInPage(await response.text());
    const events = await waitFor('the inbox to store the failure tagged with its digest', () => {
      const found = readInbox(inboxDir).events.filter(
        ({ event }) => tagOf(event, 'digest') === digest,
      );
      return found.length > 0 ? found : undefined;
    });
    expect(events).toHaveLength(1);
  });
});

describe('without example routes (production default)', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer({});
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each(['/sentry-example-page', '/sentry-example-page/ssr-error'])(
    '%s is not found',
    async (path) => {
      const response = await fetch(server.url + path);
      expect(response.status).toBe(404);
      await response.text();
    },
  );

  it('ignores the root beforeLoad failure flag', async () => {
    const response = await fetch(`${server.url}/about?example-failure=root-before-load`);
    expect(response.status).toBe(200);
    await response.text();
  });
});
