import { describe, expect, it } from 'vitest';
import { debugIdFor, debugImagesOf } from '#app/server/inbox/source-maps/debug-images';

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
