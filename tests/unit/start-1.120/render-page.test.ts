/**
 * The page renderer: the status it answers, the route manifest filter, the recorder first in the
 * head.
 */

import { describe, expect, it, vi } from 'vitest';
import {
  pageStatus,
  recorderFirstInHead,
  withoutEmptyRoutes,
} from '#app/start-1.120/render-page.server';

// The recorder's inline script is made by the app's build (build/inline-scripts.ts).
vi.mock('#app/monitoring/recorder/recorder.ts?inline-script', () => ({
  default: 'window.__monitoringRecorder=1',
}));

describe('pageStatus', () => {
  it.each([
    ['a page that loaded', { routerStatus: 200, redirected: false, failed: false }, 200],
    ['a failed load (Start says 200)', { routerStatus: 200, redirected: false, failed: true }, 500],
    ['not found', { routerStatus: 404, redirected: false, failed: false }, 404],
    ['a redirect', { routerStatus: 307, redirected: true, failed: false }, 307],
    ['a permanent redirect', { routerStatus: 301, redirected: true, failed: false }, 301],
    ['a redirect next to a failure', { routerStatus: 302, redirected: true, failed: true }, 302],
  ])('%s answers %i', (_name, outcome, status) => {
    expect(pageStatus(outcome)).toBe(status);
  });
});

const SCRIPT = { tag: 'script', children: 'import("/_build/assets/client.js")' };

describe('withoutEmptyRoutes', () => {
  it.each([
    ['preloads and assets', { preloads: ['/a.js'], assets: [SCRIPT] }, true],
    ['preloads only', { preloads: ['/a.js'] }, true],
    ['assets only', { assets: [SCRIPT] }, true],
    ['neither', { preloads: undefined, assets: undefined }, false],
    ['empty lists', { preloads: [], assets: [] }, false],
    ['nothing at all', {}, false],
  ])('a route with %s is kept: %s', (_what, route, kept) => {
    const manifest = withoutEmptyRoutes({ routes: { '/x': route } });
    expect('/x' in manifest.routes).toBe(kept);
  });

  it('keeps the rest of the manifest and leaves the original alone', () => {
    const original = {
      routes: { __root__: { preloads: ['/a.js'] }, '/about': {} },
      other: 1,
    };
    expect(withoutEmptyRoutes(original)).toEqual({
      routes: { __root__: { preloads: ['/a.js'] } },
      other: 1,
    });
    expect(Object.keys(original.routes)).toEqual(['__root__', '/about']);
  });
});

describe('recorderFirstInHead', () => {
  /** A router as Start 1.120 has it while rendering, with its head scripts so far. */
  function renderingRouter(injected: string[]) {
    const injectedHtml = injected.map((html) => Promise.resolve(html));
    return {
      serverSsr: { injectedHtml, injectHtml: async () => {} },
    };
  }

  it('puts the recorder, with the nonce, before every piece the router has injected', async () => {
    const router = renderingRouter(["<script class='tsr-once'>boot()</script>"]);
    recorderFirstInHead(router, 'n0nce');
    expect(await Promise.all(router.serverSsr.injectedHtml)).toEqual([
      '<script nonce="n0nce" id="monitoring-recorder">window.__monitoringRecorder=1</script>',
      "<script class='tsr-once'>boot()</script>",
    ]);
  });

  it('writes no nonce attribute without a nonce (vinxi dev)', async () => {
    const router = renderingRouter([]);
    recorderFirstInHead(router, undefined);
    expect(await Promise.all(router.serverSsr.injectedHtml)).toEqual([
      '<script id="monitoring-recorder">window.__monitoringRecorder=1</script>',
    ]);
  });

  it('refuses a router that is not rendering on the server', () => {
    expect(() => recorderFirstInHead({}, 'n0nce')).toThrow(/server-side rendering state/);
  });
});
