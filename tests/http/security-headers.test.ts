/**
 * Security headers on what the built server answers: every page has a Content-Security-Policy
 * whose nonce is on every inline script of that page (and only that page), nothing may frame
 * anything, the vite manifest and source maps are not served, HSTS only behind https.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';

const BASE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-frame-options': 'DENY',
};

let server: BuiltServer;

beforeAll(async () => {
  // Every page rendered: a page from the cache allows its inline scripts by hash instead of a
  // nonce, with the same headers otherwise (tests/http/page-cache.test.ts).
  server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: 'true', PAGE_CACHE_MAX_MB: '0' });
});
afterAll(() => server?.stop());

const page = (path: string) =>
  fetch(`${server.url}${path}`, { headers: { 'user-agent': BROWSER_USER_AGENT } });

function nonceOf(policy: string | null): string {
  const nonce = /script-src 'self' 'nonce-([A-Za-z0-9+/=]+)'/.exec(policy ?? '')?.[1];
  expect(nonce, `no script nonce in ${policy}`).toBeDefined();
  return nonce as string;
}

describe('a server-rendered page', () => {
  it.each(['/', '/about', '/no-such-page', '/sentry-example-page/ssr-error'])(
    '%s has the base headers and a policy that allows only its own inline scripts',
    async (path) => {
      const response = await page(path);
      const html = await response.text();
      for (const [name, value] of Object.entries(BASE_HEADERS)) {
        expect(response.headers.get(name)).toBe(value);
      }
      const policy = response.headers.get('content-security-policy');
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toContain("connect-src 'self'");
      expect(policy).toContain("object-src 'none'");
      expect(policy).not.toContain('unsafe-inline');
      expect(policy).not.toContain('unsafe-eval');
      const nonce = nonceOf(policy);
      const scripts = html.match(/<script\b[^>]*>/g) ?? [];
      expect(scripts.length).toBeGreaterThan(1);
      for (const tag of scripts) {
        expect(tag).toContain(` nonce="${nonce}"`);
        // Once: React's stream and the scripts the router injects into it are rewritten apart.
        expect(tag.split(' nonce=')).toHaveLength(2);
      }
    },
  );

  it('gets a new nonce on every response', async () => {
    const first = nonceOf((await page('/about')).headers.get('content-security-policy'));
    const second = nonceOf((await page('/about')).headers.get('content-security-policy'));
    expect(first).not.toBe(second);
  });
});

describe('everything else', () => {
  it.each(['/health', '/favicon.svg'])('%s may not be framed and loads nothing', async (path) => {
    const response = await fetch(`${server.url}${path}`);
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    for (const [name, value] of Object.entries(BASE_HEADERS)) {
      expect(response.headers.get(name)).toBe(value);
    }
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    );
  });

  it('serves no HSTS over plain http', async () => {
    expect((await page('/about')).headers.get('strict-transport-security')).toBeNull();
  });
});

describe('files for the server and tools only', () => {
  it('does not serve the vite manifest or any source map', async () => {
    for (const path of [
      '/_build/.vite/manifest.json',
      '/_build/%2Evite/manifest.json',
      '/_build/assets/anything.js.map',
    ]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.text()).not.toContain('"file"');
    }
  });

  it('still serves the client build', async () => {
    const html = await (await page('/about')).text();
    const script = /import\("(\/_build\/assets\/[^"]+\.js)"\)/.exec(html)?.[1];
    expect(script).toBeDefined();
    const response = await fetch(`${server.url}${script}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/javascript/);
  });
});

describe('behind https', () => {
  let https: BuiltServer;

  beforeAll(async () => {
    https = await startBuiltServer({ PUBLIC_URL: 'https://app.example.com' });
  });
  afterAll(() => https?.stop());

  it('sends Strict-Transport-Security when PUBLIC_URL says https', async () => {
    const response = await fetch(`${https.url}/health`);
    expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000');
  });
});
