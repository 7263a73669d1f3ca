/**
 * The page cache over HTTP against the production build (decision 1300): a page the same for
 * every visitor is rendered once and then answered from the cache, byte for byte the rendered
 * page without its nonce, its inline scripts allowed by hash; precompressed, with an ETag and
 * a 304; a query string the route does not declare neither renders nor grows it; per-visitor
 * and failed pages never come from it; a new build starts it empty.
 *
 * A render always carries a fresh nonce in its CSP and on its scripts; a page from the cache
 * never does (its CSP lists hashes): that is how each answer here is told apart.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { BUILT_ENTRY, type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { waitFor } from '#tests/support/wait-for';

/** What a page answer shows of itself, its body as sent (not decompressed). */
interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The nonce of its CSP: set on a render, never on a page from the cache. */
  nonce: string | undefined;
  /** The `'sha256-…'` sources of its CSP's script-src. */
  hashes: string[];
}

/** Node's fetch would decompress: this keeps what the server sent. */
async function get(
  server: BuiltServer,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const { request } = await import('node:http');
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: { 'user-agent': BROWSER_USER_AGENT, 'accept-encoding': 'identity', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === 'string') responseHeaders.set(name, value);
          }
          const policy = responseHeaders.get('content-security-policy') ?? '';
          const scriptSrc = policy.split('; ').find((part) => part.startsWith('script-src ')) ?? '';
          resolve({
            status: res.statusCode ?? 0,
            headers: responseHeaders,
            body: Buffer.concat(chunks),
            nonce: /'nonce-([^']+)'/.exec(scriptSrc)?.[1],
            hashes: scriptSrc.match(/'sha256-[^']+'/g) ?? [],
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * Asks for the page until an answer comes from the cache (the render that fills it is kept once
 * it has been compressed, just after its own answer), within a deadline.
 */
async function untilCached(
  server: BuiltServer,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ rendered: Answer[]; cached: Answer }> {
  const rendered: Answer[] = [];
  const cached = await waitFor(
    `${path} to come from the cache`,
    async () => {
      const answer = await get(server, path, headers);
      if (answer.nonce === undefined) return answer;
      rendered.push(answer);
    },
    { timeoutMs: 15_000 },
  );
  return { rendered, cached };
}

/** The CSP source of each inline script of a page, computed here from its HTML. */
function inlineScriptSources(html: string): string[] {
  const sources = new Set<string>();
  for (const [, attributes, text] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    if (/\ssrc=/.test(attributes ?? '')) continue;
    sources.add(
      `'sha256-${createHash('sha256')
        .update(text ?? '')
        .digest('base64')}'`,
    );
  }
  return [...sources].sort();
}

const HEADERS_OF_EVERY_PAGE = [
  'x-content-type-options',
  'referrer-policy',
  'x-frame-options',
  'cache-control',
  'content-type',
];

let server: BuiltServer;

beforeAll(async () => {
  server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: 'true' });
});
afterAll(() => server?.stop());

describe('a page the same for every visitor', () => {
  it.each(['/about', '/', '/no-such-page'])(
    '%s from the cache is the rendered page without its nonce, its inline scripts allowed by hash',
    async (path) => {
      const { rendered, cached } = await untilCached(server, path);
      // The first answer after a start is a render (the warm-up renders as a crawler would).
      const render = rendered[rendered.length - 1];
      if (!render) throw new Error(`the first ${path} after a start came from the cache`);
      expect(cached.status).toBe(render.status);
      expect(cached.status).toBe(path === '/no-such-page' ? 404 : 200);
      if (path !== '/') {
        // The same page but for the nonce, and the time of the render in the router's state.
        // (The home page's health sample is taken per render: its numbers differ too.)
        const timeless = (html: string) => html.replace(/"updatedAt":\d+/g, '"updatedAt":0');
        expect(timeless(cached.body.toString())).toBe(
          timeless(render.body.toString().replaceAll(` nonce="${render.nonce}"`, '')),
        );
      }
      const html = cached.body.toString();
      expect(html).not.toContain('nonce=');
      expect(html).toContain('id="monitoring-recorder"');
      expect([...cached.hashes].sort()).toEqual(inlineScriptSources(html));
      const policy = cached.headers.get('content-security-policy') ?? '';
      expect(policy).not.toContain('unsafe-inline');
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy.replace(/ 'sha256-[^']+'/g, '')).toBe(
        (render.headers.get('content-security-policy') ?? '').replace(/ 'nonce-[^']+'/, ''),
      );
      for (const name of HEADERS_OF_EVERY_PAGE) {
        expect(cached.headers.get(name), name).toBe(render.headers.get(name));
      }
    },
  );

  it('is sent in brotli or gzip as the client accepts, each the same page', async () => {
    const { cached } = await untilCached(server, '/about');
    const br = await get(server, '/about', { 'accept-encoding': 'gzip, deflate, br' });
    const gzip = await get(server, '/about', { 'accept-encoding': 'gzip' });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    expect(brotliDecompressSync(br.body).equals(cached.body)).toBe(true);
    expect(gunzipSync(gzip.body).equals(cached.body)).toBe(true);
    expect(br.body.length).toBeLessThan(cached.body.length / 2);
    // Each coding is an entity of its own: a tag names one of them.
    const tags = new Set([cached, br, gzip].map((answer) => answer.headers.get('etag')));
    expect(tags.size).toBe(3);
  });

  it('answers 304 without a body to If-None-Match with its ETag, and the page to another', async () => {
    const { cached } = await untilCached(server, '/about', { 'accept-encoding': 'br' });
    const etag = cached.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[\w-]+\.[\w-]+\.br"$/);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const revalidated = await get(server, '/about', {
        'accept-encoding': 'br',
        'if-none-match': ifNoneMatch,
      });
      expect(revalidated.status, ifNoneMatch).toBe(304);
      expect(revalidated.body).toHaveLength(0);
      expect(revalidated.headers.get('etag')).toBe(etag);
      expect(revalidated.headers.get('content-security-policy')).toContain("'sha256-");
    }
    const changed = await get(server, '/about', {
      'accept-encoding': 'br',
      'if-none-match': '"an-older-page-br"',
    });
    expect(changed.status).toBe(200);
    expect(brotliDecompressSync(changed.body).toString()).toContain('How errors are handled');
  });

  it('answers a query string it does not declare from the same page: no render, no new entry', async () => {
    const { cached } = await untilCached(server, '/about');
    // Each query is new: had it keyed the cache, its first answer would be a render (a nonce).
    for (let i = 0; i < 20; i++) {
      const answer = await get(server, `/about?utm_source=${i}&x=${'y'.repeat(i)}`);
      expect(answer.nonce, `query ${i} was rendered`).toBeUndefined();
      expect(answer.headers.get('etag')).toBe(cached.headers.get('etag'));
      expect(answer.body.equals(cached.body)).toBe(true);
    }
  });
});

describe('what the cache never answers', () => {
  it('a page with a query key a route acts on per request: rendered, its failure answered as ever', async () => {
    await untilCached(server, '/about');
    for (let i = 0; i < 2; i++) {
      const failed = await get(server, '/about?example-failure=root-before-load');
      expect(failed.status).toBe(500);
      expect(failed.nonce).toBeDefined();
      expect(failed.body.toString()).toMatch(/Digest: [0-9a-f]{10}/);
    }
    // And the failure took nothing from the kept page.
    const after = await get(server, '/about');
    expect(after.status).toBe(200);
    expect(after.nonce).toBeUndefined();
  });

  it.each(['/errors/sign-in', '/errors', '/sentry-example-page/ssr-error'])(
    '%s, a per-visitor or failed page, is rendered every time',
    async (path) => {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await get(server, path));
      for (const answer of answers) {
        expect(answer.nonce).toBeDefined();
        expect(answer.hashes).toEqual([]);
        expect(answer.headers.get('etag')).toBeNull();
      }
      expect(new Set(answers.map((answer) => answer.nonce)).size).toBe(answers.length);
    },
  );

  it('a not-found a route decided from the request: never kept, the page at its path stays itself', async () => {
    for (let i = 0; i < 3; i++) {
      const past = await get(server, '/errors?page=abc');
      expect(past.status).toBe(404);
      expect(past.nonce).toBeDefined();
    }
    const list = await get(server, '/errors');
    expect(list.status).toBe(200);
    expect(list.nonce).toBeDefined();
    expect(list.body.toString()).toMatch(/\d+ issues?, \d+ events?/);
  });

  it('a crawler gets the page rendered for crawlers, never the browsers’ copy', async () => {
    const { cached: browsers } = await untilCached(server, '/');
    const { cached: crawlers } = await untilCached(server, '/', { 'user-agent': 'Googlebot/2.1' });
    // Crawlers get the whole page at once: the health section in place, no streamed fallback.
    expect(browsers.body.toString()).toContain('Sampling the server&#x27;s event loop…');
    expect(crawlers.body.toString()).not.toContain('Sampling the server&#x27;s event loop…');
    expect(crawlers.body.toString()).toContain('data-testid="health-report"');
  });
});

describe('bounded in bytes', () => {
  let small: BuiltServer;
  beforeAll(async () => {
    // 1 MiB: an eighth of it for not-found pages, about six of them (each ~20 KB in three codings).
    small = await startBuiltServer({ PAGE_CACHE_MAX_MB: '1' });
  });
  afterAll(() => small?.stop());

  it('unknown paths fill only the not-found share: the oldest are dropped, /about stays', async () => {
    await untilCached(small, '/about');
    for (let i = 0; i <= 40; i++) await untilCached(small, `/missing-${i}`);
    // The newest is still kept; the first was pushed out and is rendered again.
    expect((await get(small, '/missing-40')).nonce).toBeUndefined();
    const first = await get(small, '/missing-0');
    expect(first.status).toBe(404);
    expect(first.nonce).toBeDefined();
    expect((await get(small, '/about')).nonce).toBeUndefined();
    // 42 pages rendered and kept one after another: seconds alone, longer beside other tests.
  }, 120_000);
});

describe('a new build', () => {
  let copy: string;
  let other: BuiltServer;

  beforeAll(async () => {
    // The same build under another stamp, as a rebuild from changed sources would be.
    const output = dirname(dirname(BUILT_ENTRY));
    copy = mkdtempSync(join(tmpdir(), 'page-cache-build-'));
    cpSync(output, join(copy, '.output'), { recursive: true });
    const stamp = join(copy, '.output/build-stamp.json');
    const sources = JSON.parse(readFileSync(stamp, 'utf8'));
    sources.sources.app = 'changed';
    writeFileSync(stamp, JSON.stringify(sources));
    other = await startBuiltServer(
      { ENABLE_EXAMPLE_ROUTES: 'true' },
      { entry: join(copy, '.output/server/index.mjs') },
    );
  });
  afterAll(async () => {
    await other?.stop();
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it('starts with an empty cache, and no tag of the old build matches its pages', async () => {
    const { cached: old } = await untilCached(server, '/about');
    const first = await get(other, '/about');
    expect(first.nonce, 'the first /about of a new build was not rendered').toBeDefined();
    const { cached: fresh } = await untilCached(other, '/about');
    // The same page (but for the time of its render); its tag names the build it came from.
    const timeless = (html: Buffer) => html.toString().replace(/"updatedAt":\d+/g, '');
    expect(timeless(fresh.body)).toBe(timeless(old.body));
    const buildOf = (answer: Answer) => /^"([\w-]+)\./.exec(answer.headers.get('etag') ?? '')?.[1];
    expect(buildOf(fresh)).toBeDefined();
    expect(buildOf(old)).toBeDefined();
    expect(buildOf(fresh)).not.toBe(buildOf(old));
    const revalidated = await get(other, '/about', {
      'if-none-match': old.headers.get('etag') ?? '',
    });
    expect(revalidated.status).toBe(200);
    expect(revalidated.body.equals(fresh.body)).toBe(true);
  });
});
