import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { withoutTextSeparators } from '#tests/support/html-text';
import { GET_APP_OVERVIEW_FN } from '#tests/support/server-function-paths';

let server: BuiltServer;

beforeAll(async () => {
  server = await startBuiltServer();
});
afterAll(async () => {
  await server?.stop();
});

/** Reads a response chunk by chunk, remembering what had arrived at each chunk. */
function readChunks(
  url: string,
  userAgent = BROWSER_USER_AGENT,
): Promise<{ status: number; chunks: string[] }> {
  return new Promise((done, fail) => {
    const req = request(url, { headers: { 'user-agent': userAgent } }, (res) => {
      const chunks: string[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => chunks.push(chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, chunks }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

describe('home page', () => {
  it('is server-rendered: the HTML holds its content before any script runs', async () => {
    const res = await fetch(`${server.url}/`, { headers: { 'user-agent': BROWSER_USER_AGENT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('<h1>tanstack-start-monitoring</h1>');
    expect(html).toContain('Local inbox mode');
    // The deferred section is in the same response, streamed after the shell.
    expect(html).toContain('Event-loop delay (p50 / p99)');
    expect(html).toMatch(/<a [^>]*href="\/about"/);
    // Local inbox mode links to the inbox; example routes are off in production by default.
    expect(html).toMatch(/<a [^>]*href="\/errors"[^>]*>Error inbox</);
    expect(html).not.toContain('href="/sentry-example-page"');
  });

  it('streams when rendered: the shell arrives in an earlier chunk than the deferred health report', async () => {
    // Rendered, as every render of it is (the first after a start, or with the cache off): a copy
    // from the page cache is the whole page at once (tests/http/page-cache.test.ts).
    const rendering = await startBuiltServer({ PAGE_CACHE_MAX_MB: '0' });
    const { status, chunks } = await readChunks(`${rendering.url}/`).finally(() =>
      rendering.stop(),
    );
    expect(status).toBe(200);
    const shellAt = chunks.findIndex((chunk) => chunk.includes('Monitoring</h2>'));
    const deferredAt = chunks.findIndex((chunk) => chunk.includes('Event-loop delay'));
    expect(shellAt).toBeGreaterThanOrEqual(0);
    expect(deferredAt).toBeGreaterThan(shellAt);
    // Before the deferred part arrived, the browser already had the fallback to show.
    expect(chunks.slice(0, deferredAt).join('')).toContain('Sampling the server');
  });

  it('names no path on the server, nor its Node version or memory', async () => {
    const inboxDir = /errors are kept in (\S+);/.exec(server.output())?.[1] ?? '';
    expect(inboxDir).toMatch(/^\/.*inbox/);
    // Crawlers get the deferred part in the same document, hydration data included.
    const html = withoutTextSeparators(await (await fetch(`${server.url}/`)).text());
    expect(html).not.toContain(inboxDir);
    expect(html).not.toContain(process.version);
    expect(html).not.toMatch(/MiB|heap/i);
    expect(html).toContain('Event-loop delay (p50 / p99)');
    expect(html).toContain('the local inbox at <a href="/errors">/errors</a>');
    const overview = await fetch(
      `${server.url}${GET_APP_OVERVIEW_FN}?createServerFn&payload=${encodeURIComponent('{"context":{}}')}`,
    );
    expect(overview.status).toBe(200);
    const answer = await overview.text();
    expect(answer).toContain('"kind":"local-inbox"');
    expect(answer).not.toContain(inboxDir);
  });

  it('gives crawlers the finished page: no fallback waiting for streamed-in content', async () => {
    const { status, chunks } = await readChunks(`${server.url}/`, 'curl/8.5.0');
    expect(status).toBe(200);
    const html = chunks.join('');
    expect(html).toContain('Event-loop delay (p50 / p99)');
    expect(html).not.toContain('Sampling the server');
  });

  it('names the Sentry project when SENTRY_DSN is set', async () => {
    const sentry = await startBuiltServer({
      SENTRY_DSN: 'https://publickey@o42.ingest.de.sentry.io/4242',
    });
    try {
      const html = withoutTextSeparators(await (await fetch(`${sentry.url}/`)).text());
      expect(html).toContain('Sentry project <strong>4242</strong> of organisation 42');
      expect(html).toContain('region de');
      // No inbox in Sentry mode, so no link to it.
      expect(html).not.toContain('href="/errors"');
      expect(sentry.output()).toContain(
        'errors go to Sentry project 4242 (organisation 42, region de)',
      );
    } finally {
      await sentry.stop();
    }
  });
});

describe('not found', () => {
  it.each(['/no-such-page', '/about/deeper', '/monitoring-not'])(
    '%s answers 404 with the not-found page',
    async (path) => {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      const html = await res.text();
      expect(html).toContain('Page not found');
      expect(html).toContain('<title>Page not found · Start Monitoring</title>');
    },
  );

  it.each(['/sentry-example-page', '/sentry-example-page/ssr-error'])(
    '%s (example routes off) answers 404 with the site around it, failing nothing',
    async (path) => {
      const mark = server.output().length;
      const res = await fetch(`${server.url}${path}`, {
        headers: { 'user-agent': BROWSER_USER_AGENT },
      });
      expect(res.status).toBe(404);
      const html = await res.text();
      expect(html).toMatch(/^<!DOCTYPE html><html lang="en"><head>/);
      expect(html).toMatch(/<link rel="stylesheet" href="[^"]+\.css"/);
      expect(html).toMatch(/<a [^>]*href="\/about"[^>]*>How errors are handled</);
      expect(html).toContain('Page not found');
      expect(html).toContain('<title>Page not found · Start Monitoring</title>');
      // The example loader never ran: no failure page, nothing logged.
      expect(html).not.toContain('Application error');
      expect(await server.printedSince(mark)).toBe('');
    },
  );
});

describe('the about page', () => {
  it('is served with 200', async () => {
    const res = await fetch(`${server.url}/about`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('How errors are handled');
  });
});
