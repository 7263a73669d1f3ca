import { describe, expect, it } from 'vitest';
import { withoutEmptyRoutes } from '#app/start-1.120/route-manifest.server';

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
