/**
 * Server events as good as browser events, against the production build: what a fake Sentry
 * receives for a render, a loader and a server function failure (our frames with their source
 * lines and real names, the request with safe headers only, the runtime and OS, the route as
 * transaction), and in local inbox mode what the issue page shows, reached from the event id
 * on the failure's log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSentry } from '#tests/fixtures/fake-sentry';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { exampleServerWithFakeSentry } from '#tests/support/example-server-with-fake-sentry';
import { parseEnvelope } from '#tests/support/received-envelopes';
import { FAILING_EXAMPLE_FN } from '#tests/support/server-function-paths';
import { waitFor } from '#tests/support/wait-for';

const COOKIE_SECRET = 'cookie-secret-31d7';
const AUTH_SECRET = 'auth-secret-8c02';
const RENDER_LINE =
  "throw new Error('Sentry example: render error thrown while rendering (render-secret-5e7f)');";
const LOADER_LINE =
  "throw new Error('Sentry example: loader failed during SSR (ssr-loader-secret-4b1d)');";
const SERVER_FN_LINE =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source line as written
  'throw new Error(`Sentry example server function failed for "${data.label}"`);';

interface Frame {
  filename?: string;
  function?: string;
  in_app?: boolean;
  pre_context?: string[];
  context_line?: string;
  post_context?: string[];
}

interface ServerEvent {
  event_id: string;
  transaction?: string;
  tags?: Record<string, string>;
  request?: {
    method?: string;
    url?: string;
    query_string?: string;
    headers?: Record<string, string>;
  };
  contexts?: Record<string, Record<string, unknown>>;
  exception: { values: Array<{ stacktrace?: { frames?: Frame[] } }> };
}

interface LogRecord {
  digest: string;
  eventId?: string;
  inboxLink?: string;
  stack?: string;
}

/** The event with this digest and the raw envelope it came in. */
async function sentryEventFor(sentry: FakeSentry, digest: string) {
  for (let count = 1; ; count++) {
    const requests = await sentry.waitForRequests(count);
    for (const request of requests) {
      for (const item of parseEnvelope(request.body).items) {
        const event = item.payload as ServerEvent;
        if (item.header.type === 'event' && event.tags?.digest === digest)
          return { event, raw: request.body.toString('utf8') };
      }
    }
  }
}

async function logLineOf(server: BuiltServer, digest: string): Promise<LogRecord> {
  const line = await server.waitForOutput(
    new RegExp(`^\\{"level":"error".*"digest":"${digest}".*\\}(?=\\n)`, 'm'),
  );
  return JSON.parse(line.trim()) as LogRecord;
}

function ownFrame(event: ServerEvent): Frame | undefined {
  const frames = event.exception.values.at(-1)?.stacktrace?.frames ?? [];
  return frames.filter((frame) => frame.in_app).at(-1);
}

function digestOf(text: string): string {
  const digest = /(?:Digest: |data-dgst="|\\?"digest\\?":\\?")([0-9a-f]{10})/.exec(text)?.[1];
  if (!digest) throw new Error(`no digest in:\n${text.slice(0, 1000)}`);
  return digest;
}

function getPage(server: BuiltServer, path: string) {
  return fetch(server.url + path, {
    headers: {
      'user-agent': BROWSER_USER_AGENT,
      cookie: `sid=${COOKIE_SECRET}`,
      authorization: `Bearer ${AUTH_SECRET}`,
      'x-api-key': AUTH_SECRET,
    },
  });
}

function callFailingFunction(server: BuiltServer, referer: string, label = 'events') {
  return fetch(`${server.url}${FAILING_EXAMPLE_FN}?createServerFn`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      origin: server.url,
      referer,
      cookie: `sid=${COOKIE_SECRET}`,
    },
    body: JSON.stringify({ data: { label }, context: {} }),
  });
}

describe('with a Sentry DSN: what Sentry receives', () => {
  const app = exampleServerWithFakeSentry();

  it('a render failure: RenderBomb with its source line, the request without secrets, runtime, os, route', async () => {
    const response = await getPage(app.server, '/sentry-example-page?example-failure=render');
    const digest = digestOf(await response.text());
    const { event, raw } = await sentryEventFor(app.sentry, digest);

    expect(ownFrame(event)).toMatchObject({
      function: 'RenderBomb',
      context_line: `  ${RENDER_LINE}`,
      pre_context: ['function RenderBomb(): never {', expect.any(String)],
      post_context: ['}', ''],
    });
    expect(event.request).toMatchObject({
      method: 'GET',
      url: `${app.server.url}/sentry-example-page`,
      query_string: 'example-failure=render',
      headers: { 'user-agent': BROWSER_USER_AGENT },
    });
    expect(Object.keys(event.request?.headers ?? {})).not.toEqual(
      expect.arrayContaining(['cookie']),
    );
    for (const secret of [COOKIE_SECRET, AUTH_SECRET]) expect(raw).not.toContain(secret);
    expect(event.transaction).toBe('/sentry-example-page/');
    expect(event.contexts?.runtime).toEqual({ name: 'node', version: process.version });
    expect(event.contexts?.os).toMatchObject({ name: expect.any(String) });

    const log = await logLineOf(app.server, digest);
    expect(log.eventId).toBe(event.event_id);
    expect(log.stack).toMatch(
      /at RenderBomb \(.*app\/routes\/sentry-example-page\/index\.tsx:\d+:\d+\)/,
    );
    // Sentry mode: no inbox to link to.
    expect(log.inboxLink).toBeUndefined();
  });

  it('a loader failure: loader with its source line, the page as transaction', async () => {
    const digest = digestOf(
      await (await getPage(app.server, '/sentry-example-page/ssr-error')).text(),
    );
    const { event } = await sentryEventFor(app.sentry, digest);
    expect(ownFrame(event)).toMatchObject({
      function: 'loader',
      context_line: `    ${LOADER_LINE}`,
    });
    expect(event.transaction).toBe('/sentry-example-page/ssr-error');
    expect(event.request?.method).toBe('GET');
  });

  it('a server function: callFailingExample, POST, its calling page, the page as transaction', async () => {
    const page = `${app.server.url}/sentry-example-page`;
    const response = await callFailingFunction(app.server, page);
    expect(response.status).toBe(500);
    const digest = digestOf(await response.text());
    const { event, raw } = await sentryEventFor(app.sentry, digest);

    expect(ownFrame(event)).toMatchObject({
      function: 'callFailingExample',
      context_line: `    ${SERVER_FN_LINE}`,
    });
    expect(event.request).toMatchObject({
      method: 'POST',
      url: `${app.server.url}${FAILING_EXAMPLE_FN}`,
      query_string: 'createServerFn',
      headers: { referer: page },
    });
    expect(event.contexts?.server_function).toMatchObject({ name: 'callFailingExample', page });
    expect(event.tags?.server_function).toBe('callFailingExample');
    expect(event.transaction).toBe('/sentry-example-page');
    // One route on the issue: the calling page's, not the function's internal id.
    expect(event.tags?.route).toBe('/sentry-example-page');
    expect(raw).not.toContain(COOKIE_SECRET);
    expect((await logLineOf(app.server, digest)).eventId).toBe(event.event_id);
  });

  it('another site’s Referer is not taken for the calling page', async () => {
    // Another label, another digest: this event is not the one before.
    const response = await callFailingFunction(app.server, 'https://elsewhere.example/page', 'x');
    const digest = digestOf(await response.text());
    const { event, raw } = await sentryEventFor(app.sentry, digest);
    expect(event.contexts?.server_function?.page).toBeUndefined();
    expect(raw).not.toContain('elsewhere.example');
    expect(event.transaction).toBe('callFailingExample');
  });
});

describe('local inbox: the log line leads to the event, and its page shows what happened', () => {
  const PUBLIC_URL = 'https://inbox.example';
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: '1', PUBLIC_URL });
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** The issue page the event's own address redirects to, as a browser would follow it. */
  async function eventPage(eventId: string): Promise<string> {
    const response = await fetch(`${server.url}/errors/${eventId}`, {
      headers: { 'user-agent': BROWSER_USER_AGENT },
    });
    expect(response.status).toBe(200);
    expect(response.url).toMatch(/\/errors\/issues\/\d+\?event=[0-9a-f]{32}$/);
    return response.text();
  }

  it('a render failure: the log line’s event id opens its page, with RenderBomb and its source line', async () => {
    const digest = digestOf(
      await (await getPage(server, '/sentry-example-page?example-failure=render')).text(),
    );
    const log = await logLineOf(server, digest);
    expect(log.eventId).toMatch(/^[0-9a-f]{32}$/);
    expect(log.inboxLink).toBe(`${PUBLIC_URL}/errors/${log.eventId}`);

    // The inbox stores the event a moment after the failure is logged.
    const page = await waitForPage(() => eventPage(log.eventId as string));
    const text = visibleText(page);
    expect(text).toContain('RenderBomb at app/routes/sentry-example-page/index.tsx:70:9');
    expect(text).toContain(RENDER_LINE);
    expect(text).toContain('GET http://127.0.0.1');
    expect(text).toContain('Route/sentry-example-page/');
    expect(page).not.toContain(COOKIE_SECRET);

    // The list names the thrower too.
    const list = await fetch(`${server.url}/errors`, {
      headers: { 'user-agent': BROWSER_USER_AGENT },
    });
    expect(visibleText(await list.text())).toContain(
      'app/routes/sentry-example-page/index.tsx:70 in RenderBomb',
    );

    // The event id's other form, as a UUID, opens the same event.
    const id = log.eventId as string;
    const hyphenated = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
    expect(visibleText(await eventPage(hyphenated.toUpperCase()))).toContain(RENDER_LINE);
  });

  it('a server function: its page shows POST, callFailingExample and the calling page', async () => {
    const caller = `${server.url}/sentry-example-page`;
    const digest = digestOf(await (await callFailingFunction(server, caller)).text());
    const log = await logLineOf(server, digest);
    const text = visibleText(await waitForPage(() => eventPage(log.eventId as string)));
    expect(text).toContain(`POST ${server.url}${FAILING_EXAMPLE_FN}?createServerFn`);
    expect(text).toContain('Server functioncallFailingExample');
    expect(text).toContain(`Called from${caller}`);
    // The event's page is the one that called the function, not /_server/….
    expect(text).toContain(`Page${caller}Environment`);
    expect(text).toContain(SERVER_FN_LINE);
    expect(text).toContain('callFailingExample at app/server/example.functions.ts:21:11');
  });
});

/** The event's page, asked again until the inbox has stored the event (its page answers 200). */
function waitForPage(open: () => Promise<string>): Promise<string> {
  return waitFor('the inbox to store the event and show its page', open, { everyMs: 50 });
}

/** The page's text as a reader sees it: tags dropped, entities decoded. */
function visibleText(html: string): string {
  const body = html.replace(/<script[\s\S]*?<\/script>/g, '');
  return body
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
