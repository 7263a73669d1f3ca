/**
 * The scripts a page loads before hydration hold no Sentry SDK at all; the recorder is inline:
 * the SDK with its offline store (`vendor-sentry`, our `sdk-loader`) and tracing (`sentry-tracing`,
 * our `tracing`) are imported after hydration, when the page needs them, and the SDK never
 * brings tracing with it (docs/decisions/0830-*.md, 0910-*.md, 0950-*.md). Read from what the
 * server sends: the page's scripts and modulepreloads, and every chunk they import statically.
 * This is also the check build/client-chunks.ts relies on after an SDK upgrade.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { clientChunks } from '#tests/support/client-build';

/** Strings only the SDK's errors part carries (checked to be in `vendor-sentry` below). */
const SDK_MARKERS = [
  // The integration behind window.onerror: the early recorder only names its mechanism.
  'GlobalHandlers',
  // The offline store creating its IndexedDB store: the page's own look
  // (`offlineStoreHasEnvelopes` in start-browser-monitoring.ts) never creates one.
  'createObjectStore',
];

/** Strings only tracing carries (checked to be in `sentry-tracing` below). */
const TRACING_MARKERS = [
  // The TanStack Router integration's span origin.
  'auto.pageload.react.tanstack_router',
  // Long task and long animation frame spans.
  'ui.long',
  // web-vitals' LCP observer.
  'largest-contentful-paint',
];

let server: BuiltServer;

beforeAll(async () => {
  server = await startBuiltServer();
});
afterAll(async () => {
  await server?.stop();
});

/** The chunks the HTML names (script src, modulepreload, the inline module's import). */
function chunksNamedIn(html: string): string[] {
  const named = [...html.matchAll(/["'(](\/_build\/assets\/[\w.-]+\.js)["')]/g)].map(
    (match) => match[1] as string,
  );
  return [...new Set(named)];
}

/** The chunks a chunk imports statically (by `import … from` or a bare `import` of a sibling file), not `import()`. */
function staticImportsOf(code: string): string[] {
  return [...code.matchAll(/\b(?:import|export)(?!\s*\()[^"';]*?["']\.\/([\w.-]+\.js)["']/g)].map(
    (match) => `/_build/assets/${match[1]}`,
  );
}

/** Every chunk loaded before any code runs: the HTML's, and all they import statically. */
async function scriptsBeforeHydration(path: string): Promise<Map<string, string>> {
  const response = await fetch(server.url + path, {
    headers: { 'user-agent': BROWSER_USER_AGENT },
  });
  const loaded = new Map<string, string>();
  const toLoad = chunksNamedIn(await response.text());
  for (let next = toLoad.shift(); next !== undefined; next = toLoad.shift()) {
    if (loaded.has(next)) continue;
    const chunk = await fetch(server.url + next);
    expect(chunk.status, next).toBe(200);
    const code = await chunk.text();
    loaded.set(next, code);
    toLoad.push(...staticImportsOf(code));
  }
  return loaded;
}

const chunkName = (path: string) =>
  path.slice(path.lastIndexOf('/') + 1).replace(/-[\w-]{8}\.js$/, '');

const chunkNamed = (name: string) =>
  clientChunks().find((chunk) => chunk.name.startsWith(`${name}-`));

describe('scripts before hydration', () => {
  it('the late chunks hold the markers looked for', () => {
    for (const marker of SDK_MARKERS)
      expect(chunkNamed('vendor-sentry')?.code, marker).toContain(marker);
    for (const marker of TRACING_MARKERS)
      expect(chunkNamed('sentry-tracing')?.code, marker).toContain(marker);
  });

  for (const path of ['/', '/about']) {
    it(`${path}: no SDK, no tracing and no offline store`, async () => {
      const scripts = await scriptsBeforeHydration(path);
      const names = [...scripts.keys()].map(chunkName);
      expect(names).toEqual(expect.arrayContaining(['client', 'app']));
      for (const late of ['vendor-sentry', 'sentry-tracing', 'sdk-loader', 'tracing'])
        expect(names).not.toContain(late);
      for (const [script, code] of scripts) {
        for (const marker of [...SDK_MARKERS, ...TRACING_MARKERS])
          expect(code, `${script}: ${marker}`).not.toContain(marker);
      }
    });
  }

  it('the recorder runs first: inline, before any module, allowed by the CSP, and in no chunk', async () => {
    const response = await fetch(`${server.url}/about`, {
      headers: { 'user-agent': BROWSER_USER_AGENT },
    });
    const policy = response.headers.get('content-security-policy') ?? '';
    const html = await response.text();
    const recorder = /<script(?: nonce="([^"]+)")? id="monitoring-recorder">(.+?)<\/script>/s.exec(
      html,
    );
    expect(recorder?.[2]).toContain('__monitoringRecorder');
    // By this response's nonce (a render) or by its text's hash (a page from the page cache).
    const allowedBy = recorder?.[1]
      ? `'nonce-${recorder[1]}'`
      : `'sha256-${createHash('sha256')
          .update(recorder?.[2] ?? '')
          .digest('base64')}'`;
    expect(policy).toContain(allowedBy);
    // The head's first element: before Start's own inline scripts, the modulepreload links and
    // the module script that starts the app (render-page.server.tsx, `recorderFirstInHead`).
    const head = html.slice(html.indexOf('<head>') + '<head>'.length);
    expect(head).toMatch(/^<script(?: nonce="[^"]+")? id="monitoring-recorder">/);
    expect(html.match(/id="monitoring-recorder"/g)).toHaveLength(1);
    // Its store's name is its own: no chunk carries the recorder a second time.
    for (const chunk of clientChunks()) {
      expect(chunk.code, chunk.name).not.toContain('monitoring-recorder-settled');
    }
  });

  it('the app imports the SDK and tracing only with import()', async () => {
    const scripts = await scriptsBeforeHydration('/about');
    const app = [...scripts].find(([path]) => chunkName(path) === 'app')?.[1] ?? '';
    expect(app).toMatch(/import\(["']\.\/sdk-loader-[\w-]{8}\.js["']\)/);
    expect(app).toMatch(/import\(["']\.\/tracing-[\w-]{8}\.js["']\)/);
  });

  it('the SDK loaded for an error brings no tracing with it', () => {
    for (const name of ['sdk-loader', 'vendor-sentry']) {
      const imports = staticImportsOf(chunkNamed(name)?.code ?? '').map(chunkName);
      expect(imports, name).not.toContain('sentry-tracing');
      expect(imports, name).not.toContain('tracing');
    }
  });
});
