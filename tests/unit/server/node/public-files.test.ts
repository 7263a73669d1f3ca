/**
 * Tests of public-files, one section per part of the module, in its order.
 */
import { describe, expect, it } from 'vitest';
import {
  identityPathOf,
  isCompressible,
  isHiddenBuildFile,
  isVariantRequest,
  withoutVariants,
} from '#app/server/node/public-files.server';

describe('identityPathOf', () => {
  it.each([
    ['/_build/assets/app-1a2b.js.br', '/_build/assets/app-1a2b.js'],
    ['/_build/assets/app-1a2b.js.gz', '/_build/assets/app-1a2b.js'],
    ['/favicon.svg.br', '/favicon.svg'],
    ['/_build/assets/app-1a2b.js', undefined],
    ['/data.tar.bz2', undefined],
    ['.br', undefined],
    ['/brochure', undefined],
  ])('%s → %s', (path, identity) => {
    expect(identityPathOf(path)).toBe(identity);
  });
});

describe('isCompressible', () => {
  it.each([
    ['/_build/assets/app-1a2b.js', true],
    ['/_build/assets/app-1a2b.css', true],
    ['/favicon.svg', true],
    ['/site.webmanifest', true],
    ['/data.JSON', true],
    ['/robots.txt', true],
    ['/logo.png', false],
    ['/font.woff2', false],
    ['/_build/assets/app-1a2b.js.map', false],
    ['/_build/assets/app-1a2b.js.br', false],
    ['/LICENSE', false],
    ['/v1.2/README', false],
  ])('%s → %j', (path, compressible) => {
    expect(isCompressible(path)).toBe(compressible);
  });
});

describe('the variants beside the public files', () => {
  const onDisk = new Set([
    '/_build/assets/app-1a2b.js',
    '/_build/assets/app-1a2b.js.br',
    '/_build/assets/app-1a2b.js.gz',
    '/favicon.svg',
    '/favicon.svg.br',
    '/downloads/data.tar.gz',
  ]);
  const publicFiles = withoutVariants(onDisk);

  it('are not listed as files of their own; a lone .gz is a file', () => {
    expect([...publicFiles].sort()).toEqual([
      '/_build/assets/app-1a2b.js',
      '/downloads/data.tar.gz',
      '/favicon.svg',
    ]);
  });

  it.each([
    ['/_build/assets/app-1a2b.js.br', true],
    ['/_build/assets/app-1a2b.js.gz', true],
    ['/_build/assets/app-1a2b.js%2Ebr', true],
    ['/favicon.svg.br', true],
    ['/favicon.svg.gz', true],
    ['/_build/assets/app-1a2b.js', false],
    ['/downloads/data.tar.gz', false],
    ['/_build/assets/gone.js.br', false],
  ])('a request for %s names a variant: %j', (path, variant) => {
    expect(isVariantRequest(path, publicFiles)).toBe(variant);
  });
});

describe('isHiddenBuildFile', () => {
  it.each([
    ['/_build/.vite/manifest.json', true],
    ['/_build/%2Evite/manifest.json', true],
    ['/_build/assets/client-abc.js.map', true],
    ['/_build/assets/client-abc.js%2Emap', true],
    ['/_build/assets/client-abc.js', false],
    ['/%5Fbuild/assets/client-abc.js.map', true],
    ['/assets/ssr-abc.js.map', true],
    ['/assets/ssr-abc.js%2Emap', true],
    ['/assets/app.css', false],
    ['/favicon.svg', false],
    ['/about.map', false],
    // Compressed variants of hidden files are hidden too, whoever wrote them.
    ['/_build/.vite/manifest.json.br', true],
    ['/_build/.vite/manifest.json.gz', true],
    ['/_build/.vite', true],
    ['/_build/.vite/manifest.json/', true],
    ['/_build/assets/client-abc.js.map.gz', true],
    ['/_build/assets/client-abc.js.map.br', true],
    ['/_build/assets/client-abc.js.map%2Ebr', true],
    ['/_build/assets/client-abc.js.map.gz.br', true],
    ['/_build/assets/client-abc.js.map/', true],
    ['/assets/ssr-abc.js.map.br', true],
    ['/_build/assets/client-abc.js.br', false],
    ['/_build/assets/client-abc.js.gz', false],
    ['/_build/assets/vite.svg', false],
    ['/favicon.svg.br', false],
  ])('%s → %j', (path, hidden) => {
    expect(isHiddenBuildFile(path)).toBe(hidden);
  });
});
