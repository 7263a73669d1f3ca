import { describe, expect, it } from 'vitest';
import {
  identityPathOf,
  isCompressible,
  isVariantRequest,
  withoutVariants,
} from '#app/server/compression/precompressed';

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
