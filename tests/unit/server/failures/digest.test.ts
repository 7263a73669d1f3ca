import { describe, expect, it } from 'vitest';
import { computeDigest, fingerprintOf } from '#app/server/failures/digest.server';

function thrownAt(message: string): Error {
  return new Error(message);
}

describe('computeDigest', () => {
  it('is short lowercase hex', () => {
    expect(computeDigest(new Error('x'))).toMatch(/^[0-9a-f]{10}$/);
  });

  it('is the same for the same error thrown from the same place (repeats group)', () => {
    const digests = [1, 2, 3].map(() => computeDigest(thrownAt('same')));
    expect(new Set(digests).size).toBe(1);
  });

  it.each([
    ['another message', thrownAt('same'), thrownAt('other')],
    ['another type', new TypeError('same'), new RangeError('same')],
    ['another place', thrownAt('same'), new Error('same')],
  ])('differs for %s', (_name, a, b) => {
    expect(computeDigest(a)).not.toBe(computeDigest(b));
  });

  it('does not contain the message', () => {
    const digest = computeDigest(new Error('abcdef'));
    expect(digest).not.toContain('abcdef');
  });

  it.each([
    ['a string', 'boom'],
    ['null', null],
    ['undefined', undefined],
    ['an object', { a: 1 }],
  ])('never throws for %s', (_name, value) => {
    expect(computeDigest(value)).toMatch(/^[0-9a-f]{10}$/);
  });

  it('hashes name, message and only the top stack frames, not the message line', () => {
    const error = new Error('m');
    error.stack = [
      'Error: m',
      ...Array.from({ length: 9 }, (_, i) => `    at f${i} (x.js:${i}:1)`),
    ].join('\n');
    expect(fingerprintOf(error).split('\n')).toEqual([
      'Error',
      'm',
      'at f0 (x.js:0:1)',
      'at f1 (x.js:1:1)',
      'at f2 (x.js:2:1)',
      'at f3 (x.js:3:1)',
      'at f4 (x.js:4:1)',
    ]);
  });
});
