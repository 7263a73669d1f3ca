import { describe, expect, it } from 'vitest';
import { MapIndex } from '#app/server/inbox/source-maps/map-index';

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const index = new MapIndex([
  { file: 'assets/index-Fx1a2b3c.js.map', bytes: 10, debugId: A },
  { file: 'assets/huge-123.js.map', bytes: 0, skipped: 'map larger than 50 MB' },
  { file: 'chunks/_/index.mjs.map', bytes: 10 },
  { file: 'chunks/routes/index.mjs.map', bytes: 10 },
  { file: 'a/same.mjs.map', bytes: 10 },
  { file: 'b/same.mjs.map', bytes: 10 },
]);

describe('MapIndex', () => {
  it.each([
    ['a debug id', () => index.byDebugId(A), 'assets/index-Fx1a2b3c.js.map'],
    [
      'an uppercase debug id',
      () => index.byDebugId(A.toUpperCase()),
      'assets/index-Fx1a2b3c.js.map',
    ],
    [
      'a client chunk URL path',
      () => index.byChunkPath('/_build/assets/index-Fx1a2b3c.js'),
      'assets/index-Fx1a2b3c.js.map',
    ],
    [
      'a server chunk by its folder',
      () => index.byChunkPath('/srv/.output/server/chunks/routes/index.mjs'),
      'chunks/routes/index.mjs.map',
    ],
    [
      'the other one',
      () => index.byChunkPath('/srv/.output/server/chunks/_/index.mjs'),
      'chunks/_/index.mjs.map',
    ],
  ])('finds by %s', (_, find, file) => {
    const hit = find();
    expect(hit.found && hit.entry.file).toBe(file);
  });

  it.each([
    [
      'an unknown debug id',
      () => index.byDebugId('bbbbbbbb-0000-4000-8000-000000000001'),
      'no map for this file',
    ],
    [
      'an unknown chunk',
      () => index.byChunkPath('/_build/assets/other.js'),
      'no map for this file',
    ],
    [
      'a skipped map',
      () => index.byChunkPath('/_build/assets/huge-123.js'),
      'map larger than 50 MB',
    ],
    [
      'two maps that fit as well',
      () => index.byChunkPath('/x/same.mjs'),
      'several maps could be this file',
    ],
    ['a prototype key', () => index.byChunkPath('/x/__proto__'), 'no map for this file'],
    [
      'a path climbing out',
      () => index.byChunkPath('/../../../etc/passwd'),
      'no map for this file',
    ],
  ])('answers nothing for %s', (_, find, reason) => {
    expect(find()).toEqual({ found: false, reason });
  });
});
