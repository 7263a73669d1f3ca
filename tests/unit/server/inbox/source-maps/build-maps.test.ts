import { describe, expect, it } from 'vitest';
import { buildOutputOf } from '#app/server/inbox/source-maps/build-maps.server';

describe('buildOutputOf', () => {
  it('finds the maps from the built entry', () => {
    expect(buildOutputOf('file:///srv/app/.output/server/index.mjs')).toEqual({
      clientMapsDir: '/srv/app/.output/sourcemaps/client',
      serverDir: '/srv/app/.output/server',
      projectRoot: '/srv/app',
    });
  });

  it.each([
    ['a source module under vinxi dev', 'file:///srv/app/app/server/inbox/x.server.ts'],
    ['a server chunk not rewritten by nitro', 'file:///srv/app/.output/server/chunks/_/x.mjs'],
    ['another index.mjs', 'file:///srv/app/.output/public/index.mjs'],
    ['not a file URL', 'http://localhost:3000/server/index.mjs'],
    ['not a URL', 'index.mjs'],
  ])('finds none for %s', (_, url) => {
    expect(buildOutputOf(url)).toBeUndefined();
  });
});
