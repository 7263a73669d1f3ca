/**
 * The scripts a page loads before hydration hold no Sentry SDK at all, only the early recorder:
 * the SDK (`vendor-sentry`), tracing and the offline store (`sentry-tracing`) and our `late-sdk`
 * are imported after hydration (docs/decisions/0830-*.md, 0910-sentry-sdk-after-hydration.md). Read from what the server
 * sends: the page's scripts and modulepreloads, and every chunk they import statically. This is
 * also the check build/client-chunks.ts relies on after an SDK upgrade.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { clientChunks } from '#tests/support/client-build';

/** Strings only tracing or the offline store carry (checked to be in `sentry-tracing` below). */
const LATE_MARKERS = [
  // The TanStack Router integration's span origin.
  'auto.pageload.react.tanstack_router',
  // Long task and long animation frame spans.
  'ui.long',
  // web-vitals' LCP observer.
  'largest-contentful-paint',
  // The offline store's IndexedDB database.
  'sentry-offline',
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

/** The chunks a chunk imports statically (`import … from "./x.js"`, `import "./x.js"`), not `import()`. */
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

describe('scripts before hydration', () => {
  it('the late chunks hold the markers looked for', () => {
    const tracing = clientChunks().find((chunk) => chunk.name.startsWith('sentry-tracing-'));
    for (const marker of LATE_MARKERS) expect(tracing?.code, marker).toContain(marker);
  });

  for (const path of ['/', '/about']) {
    it(`${path}: no SDK, no tracing and no offline store`, async () => {
      const scripts = await scriptsBeforeHydration(path);
      const names = [...scripts.keys()].map(chunkName);
      expect(names).toEqual(expect.arrayContaining(['client', 'app']));
      expect(names).not.toContain('vendor-sentry');
      expect(names).not.toContain('sentry-tracing');
      expect(names).not.toContain('late-sdk');
      for (const [script, code] of scripts) {
        for (const marker of LATE_MARKERS)
          expect(code, `${script}: ${marker}`).not.toContain(marker);
      }
    });
  }

  it('the app imports the late part only with import()', async () => {
    const scripts = await scriptsBeforeHydration('/about');
    const app = [...scripts].find(([path]) => chunkName(path) === 'app')?.[1] ?? '';
    expect(app).toMatch(/import\(["']\.\/late-sdk-[\w-]{8}\.js["']\)/);
  });
});
