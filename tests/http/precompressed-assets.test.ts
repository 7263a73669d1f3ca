/**
 * Precompressed public files and cache headers, against the production build over real
 * sockets (node:http: fetch would decode the body and hide what came over the wire). Every
 * text file is sent as brotli or gzip by `Accept-Encoding`, byte for byte the build's variant,
 * decoding to exactly the file; identity when the client accepts neither. Content-hashed files
 * are immutable, other files revalidated, pages kept out of shared caches, the inbox and
 * server-function answers stored nowhere; files for tools are 404 in every encoding.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { CLIENT_MAPS_DIR, filesUnder, PUBLIC_DIR } from '#tests/support/client-build';
import { type RawAnswer, rawRequest } from '#tests/support/raw-request';
import { GET_APP_OVERVIEW_FN } from '#tests/support/server-function-paths';

const IMMUTABLE = 'public, max-age=31536000, immutable';
/** What Chromium and Firefox send. */
const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';

let server: BuiltServer;

beforeAll(async () => {
  server = await startBuiltServer({ ENABLE_EXAMPLE_ROUTES: 'true' });
});
afterAll(() => server?.stop());

const urlPathOf = (file: string) => `/${relative(PUBLIC_DIR, file).split(sep).join('/')}`;
const publicFiles = () => filesUnder(PUBLIC_DIR).map(urlPathOf);
const variants = () => publicFiles().filter((path) => /\.(br|gz)$/.test(path));
/** The files visitors fetch that have variants: the client build, the styles, the favicon. */
const compressedFiles = () => variants().map((path) => path.replace(/\.(br|gz)$/, ''));
const onDisk = (path: string) => readFileSync(join(PUBLIC_DIR, path));

function get(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<RawAnswer> {
  return rawRequest(`${server.url}${path}`, { method, headers });
}

function varyOf(answer: RawAnswer): string[] {
  return String(answer.headers.vary ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
}

describe('the build', () => {
  it('writes a .br and a .gz beside every client chunk and stylesheet, and the favicon', () => {
    const assets = publicFiles().filter((path) => /^\/(_build\/)?assets\/.*\.(js|css)$/.test(path));
    expect(assets.length).toBeGreaterThan(10);
    for (const path of [...assets, '/favicon.svg']) {
      expect(publicFiles(), path).toContain(`${path}.br`);
      expect(publicFiles(), path).toContain(`${path}.gz`);
    }
  });

  it('writes each variant smaller than its file, decoding to exactly the file', () => {
    expect(variants().length).toBeGreaterThan(20);
    for (const variant of variants()) {
      const identity = variant.replace(/\.(br|gz)$/, '');
      // A variant without its file would be a file served only compressed (nitro's own
      // compressPublicAssets leaves such variants of the server's code).
      expect(existsSync(join(PUBLIC_DIR, identity)), variant).toBe(true);
      const decoded = variant.endsWith('.br')
        ? brotliDecompressSync(onDisk(variant))
        : gunzipSync(onDisk(variant));
      expect(decoded.equals(onDisk(identity)), variant).toBe(true);
      expect(onDisk(variant).length, variant).toBeLessThan(onDisk(identity).length);
    }
  });

  it('publishes no server code and compresses no file for tools', () => {
    expect(publicFiles().filter((path) => path.startsWith('/_server/'))).toEqual([]);
    expect(
      publicFiles().filter(
        (path) => /\.(m?js)(\.br|\.gz)?$/.test(path) && path.startsWith('/assets/'),
      ),
    ).toEqual([]);
    expect(
      publicFiles().filter(
        (path) => path.includes('/.vite/') && path !== '/_build/.vite/manifest.json',
      ),
    ).toEqual([]);
    expect(publicFiles().filter((path) => /\.map(\.br|\.gz)?$/.test(path))).toEqual([]);
  });

  it('names every file under the immutable directories with a content hash', () => {
    const hashed = publicFiles().filter((path) => /^\/(_build\/)?assets\//.test(path));
    expect(hashed.length).toBeGreaterThan(10);
    for (const path of hashed) expect(path).toMatch(/-[\w-]{8}\.(js|css)(\.br|\.gz)?$/);
  });
});

describe('a compressed file, by Accept-Encoding', () => {
  it.each([
    [BROWSER_ENCODINGS, 'br', '.br'],
    ['br', 'br', '.br'],
    ['gzip', 'gzip', '.gz'],
    ['gzip, br;q=0', 'gzip', '.gz'],
    ['x-gzip', 'gzip', '.gz'],
    ['*', 'br', '.br'],
  ])(
    '%j: %s, the build variant byte for byte, decoding to the file',
    async (accept, coding, suffix) => {
      for (const path of compressedFiles()) {
        const answer = await get(path, { 'accept-encoding': accept });
        expect(answer.status, path).toBe(200);
        expect(answer.headers['content-encoding'], path).toBe(coding);
        expect(varyOf(answer), path).toContain('accept-encoding');
        expect(answer.body.equals(onDisk(`${path}${suffix}`)), path).toBe(true);
        expect(Number(answer.headers['content-length']), path).toBe(answer.body.length);
        const decoded =
          coding === 'br' ? brotliDecompressSync(answer.body) : gunzipSync(answer.body);
        expect(decoded.equals(onDisk(path)), path).toBe(true);
      }
    },
  );

  it.each([
    ['no Accept-Encoding', {}],
    ['identity', { 'accept-encoding': 'identity' }],
    ['deflate only', { 'accept-encoding': 'deflate' }],
    ['both refused', { 'accept-encoding': 'br;q=0, gzip;q=0' }],
  ])('%s: the file itself, still varying by Accept-Encoding', async (_, headers) => {
    for (const path of compressedFiles()) {
      const answer = await get(path, headers);
      expect(answer.status, path).toBe(200);
      expect(answer.headers['content-encoding'], path).toBeUndefined();
      expect(varyOf(answer), path).toContain('accept-encoding');
      expect(answer.body.equals(onDisk(path)), path).toBe(true);
      expect(Number(answer.headers['content-length']), path).toBe(onDisk(path).length);
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const path = compressedFiles().find((file) => file.includes('vendor-react-')) as string;
    for (const accept of [BROWSER_ENCODINGS, 'gzip', 'identity']) {
      const full = await get(path, { 'accept-encoding': accept });
      const head = await get(path, { 'accept-encoding': accept }, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      for (const name of [
        'content-encoding',
        'content-length',
        'content-type',
        'etag',
        'vary',
        'cache-control',
      ]) {
        expect(head.headers[name], `${accept} ${name}`).toEqual(full.headers[name]);
      }
    }
  });

  it('answers 304 to the ETag of the encoding it would send, and only to that one', async () => {
    const path = compressedFiles().find((file) => file.includes('/_build/assets/app-')) as string;
    const br = await get(path, { 'accept-encoding': 'br' });
    const gzip = await get(path, { 'accept-encoding': 'gzip' });
    expect(br.headers.etag).toBeDefined();
    expect(br.headers.etag).not.toBe(gzip.headers.etag);

    const again = await get(path, {
      'accept-encoding': 'br',
      'if-none-match': String(br.headers.etag),
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers['cache-control']).toBe(IMMUTABLE);
    expect(varyOf(again)).toContain('accept-encoding');

    // A gzip-only client holding the brotli copy's tag gets the gzip copy, not a 304.
    const other = await get(path, {
      'accept-encoding': 'gzip',
      'if-none-match': String(br.headers.etag),
    });
    expect(other.status).toBe(200);
    expect(other.headers['content-encoding']).toBe('gzip');
  });
});

describe('Cache-Control', () => {
  it('is immutable for every content-hashed file, in every encoding, and for a 304', async () => {
    const hashed = publicFiles().filter((path) =>
      /^\/(_build\/)?assets\/[^/]+\.(js|css)$/.test(path),
    );
    for (const path of hashed) {
      for (const accept of [BROWSER_ENCODINGS, '']) {
        const answer = await get(path, { 'accept-encoding': accept });
        expect(answer.status, path).toBe(200);
        expect(answer.headers['cache-control'], path).toBe(IMMUTABLE);
      }
    }
  });

  it('asks again for a file with a stable name', async () => {
    const answer = await get('/favicon.svg', { 'accept-encoding': BROWSER_ENCODINGS });
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('public, no-cache');
    const again = await get('/favicon.svg', {
      'accept-encoding': BROWSER_ENCODINGS,
      'if-none-match': String(answer.headers.etag),
    });
    expect(again.status).toBe(304);
  });

  it('is never immutable for a chunk that is not there (an older build asked for it)', async () => {
    const answer = await get('/_build/assets/router-00000000.js', { 'accept-encoding': 'br' });
    expect(answer.status).toBe(404);
    expect(answer.headers['cache-control']).toBe('private, no-cache');
  });

  it.each([
    ['/', 200],
    ['/about', 200],
    ['/no-such-page', 404],
    // A path that only begins like the inbox's is a page like any other.
    ['/errorsx', 404],
    ['/sentry-example-page/ssr-error', 500],
  ])('keeps %s (%i) out of shared caches and revalidated', async (path, status) => {
    const answer = await get(path, {
      'user-agent': BROWSER_USER_AGENT,
      'accept-encoding': BROWSER_ENCODINGS,
    });
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toMatch(/^text\/html/);
    expect(answer.headers['cache-control']).toBe('private, no-cache');
  });

  it.each([
    ['/errors', 200],
    ['/errors/', 200],
    ['/errors/sign-in', 200],
    ['/errors/0123abcd', 404],
    // The router matches paths case-insensitively and decoded: these are the inbox too.
    ['/Errors', 200],
    ['/%65rrors', 200],
  ])('lets no cache store the private inbox, %s (%i)', async (path, status) => {
    const answer = await get(path);
    expect(answer.status).toBe(status);
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('lets no cache store what a server function answers', async () => {
    const payload = encodeURIComponent(JSON.stringify({ data: null, context: {} }));
    const answer = await get(`${GET_APP_OVERVIEW_FN}?createServerFn&payload=${payload}`, {
      accept: 'application/json',
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"environment"');
    expect(answer.headers['cache-control']).toBe('no-store');
    const unknown = await get('/_server/abc123', { accept: 'application/json' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['cache-control']).toBe('no-store');
  });
});

describe('files for the server and tools', () => {
  const hidden = () => [
    '/_build/.vite/manifest.json',
    '/_build/.vite/manifest.json.br',
    '/_build/.vite/manifest.json.gz',
    '/_build/.vite/manifest.json/',
    ...filesUnder(CLIENT_MAPS_DIR)
      .map((file) => `/${relative(CLIENT_MAPS_DIR, file).split(sep).join('/')}`)
      .flatMap((map) => [map, `${map}.br`, `${map}.gz`]),
  ];

  it.each([BROWSER_ENCODINGS, 'gzip', ''])(
    'are 404 in every encoding (Accept-Encoding %j)',
    async (accept) => {
      const paths = hidden();
      expect(paths.length).toBeGreaterThan(10);
      for (const path of paths) {
        const answer = await get(path, { 'accept-encoding': accept });
        expect(answer.status, path).toBe(404);
        expect(answer.text, path).toBe('Not found');
      }
    },
  );

  it('include the variants themselves: a .br is never sent to a client that did not ask for it', async () => {
    for (const variant of variants()) {
      for (const accept of [BROWSER_ENCODINGS, '']) {
        const answer = await get(variant, { 'accept-encoding': accept });
        expect(answer.status, variant).toBe(404);
      }
    }
  });
});
