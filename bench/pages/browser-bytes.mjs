// The JavaScript Chromium loads for /about, read from the DevTools protocol's Network domain:
// every `Script` resource (module scripts and modulepreloads alike) with its decoded size, its
// gzip -9 size and what crossed the wire (loadingFinished's encodedDataLength: response headers
// and body as sent, in whatever Content-Encoding the server chose).
//
// "Before hydration": the scripts that had finished loading when React claimed the page's
// <main> (its `__reactFiber$…` key appears on the element during hydration). An init script
// polls for that key on a MessageChannel loop: its messages queue in order with React's own
// scheduler tasks, so it sees the key before any effect of the hydrated page runs and starts a
// lazy import. Scripts still loading then, or requested later, are "after hydration".
// "First visit" is every script up to the load event plus network idle (500 ms without a request).
// The page's own inline scripts count too (our recorder in the head, decision 0510), in both
// totals: they run before anything else. Start's own inline scripts (its hydration data and
// bootstrap, `class='tsr-once'`, in every Start app) and JSON data are not counted, as before.
// On the wire an inline script costs its raw bytes: the server leaves HTML uncompressed (0820).
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { hasExplicitFreshness } from './freshness.mjs';
import { BROWSER_UA } from './load.mjs';

const LAUNCH = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
};

/** Runs in the page before its own scripts: notes when hydration reached <main>. */
function watchHydration() {
  const started = performance.now();
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    const main = document.querySelector('main');
    if (main && Object.keys(main).some((key) => key.startsWith('__reactFiber$'))) {
      window.__benchHydrated = {
        atMs: performance.now(),
        loaded: performance.getEntriesByType('resource').map((entry) => entry.name),
      };
      return;
    }
    if (performance.now() - started < 30_000) channel.port2.postMessage(null);
  };
  channel.port2.postMessage(null);
}

export async function launchBrowser() {
  return chromium.launch(LAUNCH);
}

/** The page's own inline scripts in an HTML document, as counted scripts (their text as body). */
function ownInlineScripts(html) {
  const scripts = [];
  for (const [, attributes, text] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    if (/\bsrc=/.test(attributes) || /tsr-once/.test(attributes)) continue;
    if (/type="application\/json"/.test(attributes) || text.trim() === '') continue;
    const body = Buffer.from(text);
    scripts.push({ url: 'inline', inline: true, body, wire: body.length, encoding: 'inline' });
  }
  return scripts;
}

/** Records the scripts of one page load through CDP. */
async function recordScripts(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const seen = new Map();
  const finished = [];
  let documentHtml = Promise.resolve('');
  cdp.on('Network.responseReceived', ({ requestId, type, response }) => {
    if (type === 'Document') {
      const loaded = new Promise((resolve) => {
        cdp.on('Network.loadingFinished', (event) => {
          if (event.requestId === requestId) resolve();
        });
      });
      documentHtml = loaded
        .then(() => cdp.send('Network.getResponseBody', { requestId }))
        .then(({ body, base64Encoded }) =>
          base64Encoded ? Buffer.from(body, 'base64').toString() : body,
        )
        .catch(() => '');
      return;
    }
    if (type !== 'Script' && !/javascript/.test(response.mimeType)) return;
    const headers = Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    seen.set(requestId, {
      url: response.url,
      status: response.status,
      fromCache: Boolean(response.fromDiskCache || response.fromPrefetchCache),
      encoding: headers['content-encoding'] ?? 'identity',
      cacheControl: headers['cache-control'] ?? 'none',
      explicitlyFresh: hasExplicitFreshness(headers['cache-control'], headers.expires),
    });
  });
  cdp.on('Network.requestServedFromCache', ({ requestId }) => {
    const script = seen.get(requestId);
    if (script) script.fromCache = true;
  });
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    const script = seen.get(requestId);
    if (!script) return;
    script.wire = encodedDataLength;
    finished.push(
      cdp
        .send('Network.getResponseBody', { requestId })
        .then(({ body, base64Encoded }) => {
          script.body = Buffer.from(body, base64Encoded ? 'base64' : 'utf8');
        })
        .catch(() => {
          // No body (a 304 with nothing new, evicted): counted on the wire only.
        }),
    );
  });
  return {
    async scripts() {
      await Promise.all(finished);
      const inline = ownInlineScripts(await documentHtml);
      await cdp.detach();
      return [...inline, ...seen.values()].filter((script) => script.wire !== undefined);
    },
  };
}

const sum = (scripts, of) => scripts.reduce((total, script) => total + of(script), 0);

function totals(scripts) {
  return {
    count: scripts.length,
    raw: sum(scripts, (script) => script.body?.length ?? 0),
    gzip: sum(scripts, (script) => (script.body ? gzipSync(script.body, { level: 9 }).length : 0)),
    wire: sum(scripts, (script) => script.wire),
    encodings: [...new Set(scripts.map((script) => script.encoding))].join('+') || '-',
    cacheControl: [...new Set(scripts.map((script) => script.cacheControl))].join(' | ') || '-',
    /** Scripts a later visit may have to fetch again: no max-age, no Expires (freshness.mjs). */
    withoutFreshness: scripts.filter((script) => !script.inline && !script.explicitlyFresh).length,
  };
}

/**
 * First visit to `url` in a fresh context (empty cache), then a second in the same context.
 * Resolves with { first, beforeHydration, hydrated, second } byte totals.
 */
export async function measurePageScripts(browser, url) {
  const context = await browser.newContext({ userAgent: BROWSER_UA });
  try {
    await context.addInitScript(watchHydration);
    const page = await context.newPage();
    const firstVisit = await recordScripts(page);
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForLoadState('networkidle');
    const hydration = await page.evaluate(() => window.__benchHydrated ?? null);
    const first = await firstVisit.scripts();
    const loadedBefore = new Set(hydration?.loaded ?? []);
    const beforeHydration = first.filter((script) => script.inline || loadedBefore.has(script.url));
    await page.close();

    // A second visit, as a returning visitor makes it: a new tab, the same cache.
    const again = await context.newPage();
    const secondVisit = await recordScripts(again);
    await again.goto(url, { waitUntil: 'load' });
    await again.waitForLoadState('networkidle');
    const second = await secondVisit.scripts();
    // An inline script comes with the page, not as a script request.
    const overNetwork = second.filter((script) => !script.fromCache && !script.inline);
    return {
      first: totals(first),
      beforeHydration: totals(beforeHydration),
      hydrated: hydration !== null,
      hydratedAtMs: hydration?.atMs,
      second: { count: overNetwork.length, wire: sum(overNetwork, (script) => script.wire) },
    };
  } finally {
    await context.close();
  }
}
