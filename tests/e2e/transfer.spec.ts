/**
 * What a visit to /about costs on the wire in Chromium, against the production build: on a
 * first visit every script arrives as the build's brotli file; on a second visit no script
 * comes over the network at all (immutable, from the browser's cache). Prints the figures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BrowserContext, expect, test } from '@playwright/test';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { PUBLIC_DIR } from '#tests/support/client-build';

let server: BuiltServer;

test.beforeAll(async () => {
  server = await startBuiltServer();
});
test.afterAll(() => server?.stop());

interface ScriptLoad {
  path: string;
  encoding: string | undefined;
  cacheControl: string | undefined;
  /** Bytes received for it: headers and body as they came, 0 from the cache. */
  wireBytes: number;
  fromCache: boolean;
}

/** Opens /about in a new tab of `context` and reports each script it loaded, once idle. */
async function visitAbout(context: BrowserContext): Promise<ScriptLoad[]> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const scripts = new Map<string, ScriptLoad>();
  const wire = new Map<string, number>();
  // Chromium names a memory-cache hit in an event of its own, before the response.
  const fromMemory = new Set<string>();
  cdp.on('Network.requestServedFromCache', ({ requestId }) => fromMemory.add(requestId));
  cdp.on('Network.responseReceived', ({ requestId, type, response }) => {
    if (type !== 'Script') return;
    const header = (wanted: string) =>
      Object.entries(response.headers).find(([name]) => name.toLowerCase() === wanted)?.[1];
    scripts.set(requestId, {
      path: new URL(response.url).pathname,
      encoding: header('content-encoding'),
      cacheControl: header('cache-control'),
      wireBytes: 0,
      fromCache: !!response.fromDiskCache || fromMemory.has(requestId),
    });
  });
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    wire.set(requestId, encodedDataLength);
  });
  await page.goto(`${server.url}/about`, { waitUntil: 'networkidle' });
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  const loads = [...scripts].map(([id, load]) => ({ ...load, wireBytes: wire.get(id) ?? 0 }));
  await page.close();
  return loads;
}

test('a first visit to /about gets every script as brotli; a second gets none over the wire', async ({
  browser,
}) => {
  const context = await browser.newContext();
  const first = await visitAbout(context);
  expect(first.length).toBeGreaterThan(3);
  let bodyBytes = 0;
  let identityBytes = 0;
  for (const load of first) {
    expect(load.fromCache, load.path).toBe(false);
    expect(load.encoding, load.path).toBe('br');
    // Without it the second visit below would come from the cache only while the build is
    // young (heuristic freshness: a tenth of the time since Last-Modified).
    expect(load.cacheControl, load.path).toBe('public, max-age=31536000, immutable');
    const brotli = readFileSync(join(PUBLIC_DIR, `${load.path}.br`)).length;
    // The brotli file and its response headers.
    expect(load.wireBytes, load.path).toBeGreaterThanOrEqual(brotli);
    expect(load.wireBytes, load.path).toBeLessThan(brotli + 1024);
    bodyBytes += brotli;
    identityBytes += readFileSync(join(PUBLIC_DIR, load.path)).length;
  }
  const wireBytes = first.reduce((sum, load) => sum + load.wireBytes, 0);
  expect(wireBytes).toBeLessThan(identityBytes / 2);
  console.log(
    `[transfer] first visit to /about: ${first.length} scripts, ${wireBytes} bytes on the wire (${bodyBytes} of brotli bodies, ${identityBytes} uncompressed)`,
  );

  const second = await visitAbout(context);
  expect(second.map((load) => load.path).sort()).toEqual(first.map((load) => load.path).sort());
  for (const load of second) {
    expect(load.fromCache, load.path).toBe(true);
    expect(load.wireBytes, load.path).toBe(0);
  }
  await context.close();
});
