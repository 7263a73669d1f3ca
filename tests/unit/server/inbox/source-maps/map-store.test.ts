import { describe, expect, it } from 'vitest';
import {
  debugIdFor,
  debugImagesOf,
  MapIndex,
} from '#app/server/inbox/source-maps/map-store.server';

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const index = new MapIndex([
  { file: 'assets/index-Fx1a2b3c.js.map', bytes: 10, debugId: A },
  { file: 'assets/huge-123.js.map', bytes: 0, skipped: 'map larger than 50 MB' },
  { file: 'chunks/_/index.mjs.map', bytes: 10 },
  { file: 'chunks/routes/index.mjs.map', bytes: 10 },
  { file: 'a/tunnel.mjs.map', bytes: 10 },
  { file: 'b/tunnel.mjs.map', bytes: 10 },
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
      () => index.byChunkPath('/x/tunnel.mjs'),
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

const ID = 'c73ef746-095d-4ce6-b063-d97a79dafeb9';
const URL = 'http://localhost:3000/_build/assets/index-abc.js';

describe('debugImagesOf', () => {
  it('reads the SDK sourcemap images', () => {
    const event = {
      debug_meta: { images: [{ type: 'sourcemap', code_file: URL, debug_id: ID.toUpperCase() }] },
    };
    expect(debugImagesOf(event)).toEqual([{ codeFile: URL, debugId: ID }]);
  });

  it.each([
    ['no debug_meta', {}],
    ['not an object', 'event'],
    ['images not a list', { debug_meta: { images: { 0: {} } } }],
    [
      'another image type',
      { debug_meta: { images: [{ type: 'macho', code_file: URL, debug_id: ID }] } },
    ],
    [
      'a debug id that is no uuid',
      { debug_meta: { images: [{ type: 'sourcemap', code_file: URL, debug_id: '../../etc' }] } },
    ],
    [
      'a numeric debug id',
      { debug_meta: { images: [{ type: 'sourcemap', code_file: URL, debug_id: 7 }] } },
    ],
    ['no code_file', { debug_meta: { images: [{ type: 'sourcemap', debug_id: ID }] } }],
    [
      'a code_file object',
      { debug_meta: { images: [{ type: 'sourcemap', code_file: {}, debug_id: ID }] } },
    ],
    ['null image', { debug_meta: { images: [null] } }],
  ])('ignores %s', (_, event) => {
    expect(debugImagesOf(event)).toEqual([]);
  });

  it('is not fooled by prototype keys', () => {
    const event = JSON.parse(
      `{"debug_meta":{"__proto__":{"images":[{"type":"sourcemap","code_file":"${URL}","debug_id":"${ID}"}]}}}`,
    );
    expect(debugImagesOf(event)).toEqual([]);
    expect(debugIdFor('__proto__', [])).toBeUndefined();
    expect(debugIdFor('constructor', [])).toBeUndefined();
  });

  it('matches a frame by its exact filename', () => {
    const images = [{ codeFile: URL, debugId: ID }];
    expect(debugIdFor(URL, images)).toBe(ID);
    expect(debugIdFor(`${URL}?v=2`, images)).toBeUndefined();
  });
});
