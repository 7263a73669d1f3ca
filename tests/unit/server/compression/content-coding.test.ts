import { describe, expect, it } from 'vitest';
import { acceptedCodings } from '#app/server/compression/content-coding';

describe('acceptedCodings', () => {
  it.each([
    // Accept-Encoding → the codings of ours it allows, the client's favourite first
    [undefined, []],
    ['', []],
    ['identity', []],
    ['deflate', []],
    // What browsers send (Chromium, Firefox; Safari has no zstd), and curl --compressed.
    ['gzip, deflate, br, zstd', ['br', 'gzip']],
    ['gzip, deflate, br', ['br', 'gzip']],
    ['deflate, gzip, br, zstd', ['br', 'gzip']],
    ['gzip', ['gzip']],
    ['br', ['br']],
    // Weights: q=0 refuses, the best weight comes first, equal weights prefer brotli.
    ['br;q=0, gzip', ['gzip']],
    ['gzip;q=0, br', ['br']],
    ['gzip;q=0, br;q=0', []],
    ['gzip;q=1.0, br;q=0.5', ['gzip', 'br']],
    ['gzip;q=0.5, br;q=0.5', ['br', 'gzip']],
    ['br;q=0.001', ['br']],
    ['br ; q=0.8 , gzip ; Q=0.9', ['gzip', 'br']],
    // The wildcard stands for every coding not named.
    ['*', ['br', 'gzip']],
    ['*;q=0', []],
    ['gzip;q=0, *', ['br']],
    ['*;q=0, gzip', ['gzip']],
    // Names are case-insensitive; x-gzip is gzip.
    ['GZIP, BR', ['br', 'gzip']],
    ['x-gzip', ['gzip']],
    // A malformed weight accepts nothing; other parameters are ignored.
    ['br;q=high, gzip', ['gzip']],
    ['br;q=1.5', []],
    ['br;q=-1', []],
    ['br;q=', []],
    ['br;level=5', ['br']],
    // Named twice: the better weight counts.
    ['br;q=0, br', ['br']],
    [',,, ,br', ['br']],
  ])('%j → %j', (header, expected) => {
    expect(acceptedCodings(header)).toEqual(expected);
  });
});
