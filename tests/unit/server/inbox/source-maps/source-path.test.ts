import { describe, expect, it } from 'vitest';
import { shownSource } from '#app/server/inbox/source-maps/source-path';

describe('shownSource', () => {
  it.each([
    ['relative to the map', '../../app/routes/x.tsx', 'app/routes/x.tsx', false],
    [
      'Vite client map',
      '../app/routes/sentry-example-page/index.tsx',
      'app/routes/sentry-example-page/index.tsx',
      false,
    ],
    ['webpack with a namespace', 'webpack://my-app/./app/routes/x.tsx', 'app/routes/x.tsx', false],
    ['webpack without one', 'webpack:///./app/routes/x.tsx', 'app/routes/x.tsx', false],
    [
      'absolute from the build machine',
      '/home/ci/project/app/routes/x.tsx',
      'app/routes/x.tsx',
      false,
    ],
    [
      'file URL',
      'file:///home/ci/project/app/server/env.server.ts',
      'app/server/env.server.ts',
      false,
    ],
    ['Windows path', 'C:\\ci\\project\\app\\routes\\x.tsx', 'app/routes/x.tsx', false],
    ['cannot climb above the start', '../../../../etc/passwd', 'etc/passwd', false],
    [
      'a library',
      '../../node_modules/react-dom/cjs/react-dom-client.production.js',
      'react-dom/cjs/react-dom-client.production.js',
      true,
    ],
    [
      'a scoped library',
      'webpack://x/./node_modules/@tanstack/react-router/dist/esm/link.js',
      '@tanstack/react-router/dist/esm/link.js',
      true,
    ],
    [
      'a library inside a library: the innermost package',
      '/p/node_modules/a/node_modules/b/index.js',
      'b/index.js',
      true,
    ],
    ['a Rollup virtual module', '\0commonjsHelpers.js', 'commonjsHelpers.js', true],
    ['a Vite helper', 'vite/preload-helper.js', 'vite/preload-helper.js', true],
    [
      "the router's code-split route (a query on the module id)",
      '../../../../../app/routes/sentry-example-page/index.tsx?tsr-split=component',
      'app/routes/sentry-example-page/index.tsx',
      false,
    ],
    ['a Vite asset import', '../../app/styles/app.css?url', 'app/styles/app.css', false],
    ['a fragment', 'webpack://x/./app/x.tsx#L1', 'app/x.tsx', false],
  ])('%s', (_, source, path, library) => {
    expect(shownSource(source)).toEqual({ path, library });
  });

  it('shows an absolute source relative to the project root when given', () => {
    // Without the root, the first "app/" folder would be the parent one.
    expect(
      shownSource('/srv/app/project/app/routes/x.tsx', { projectRoot: '/srv/app/project' }),
    ).toEqual({
      path: 'app/routes/x.tsx',
      library: false,
    });
  });

  it('counts a source on the map ignore list as a library', () => {
    expect(shownSource('../lib/vendored.js', { ignored: true })).toEqual({
      path: 'lib/vendored.js',
      library: true,
    });
  });

  it('cuts a very long path', () => {
    const { path } = shownSource(`app/${'a/'.repeat(500)}x.ts`);
    expect(path.length).toBeLessThanOrEqual(257);
    expect(path.endsWith('…')).toBe(true);
  });
});
