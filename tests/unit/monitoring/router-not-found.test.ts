import { describe, expect, it } from 'vitest';
import { showsNotFound } from '#app/monitoring/router-not-found';

describe('showsNotFound', () => {
  it.each([
    ['no matches', [], false],
    ['every match loaded', [{ status: 'success' }, { status: 'success' }], false],
    [
      'a loader or beforeLoad threw notFound()',
      [{ status: 'success' }, { status: 'notFound' }],
      true,
    ],
    ['the path matched only a prefix (fuzzy)', [{ status: 'success', globalNotFound: true }], true],
    ['a failed match is an error, not a not-found', [{ status: 'error' }], false],
    ['still pending', [{ status: 'pending' }], false],
  ])('%s: %s', (_name, matches, expected) => {
    expect(showsNotFound(matches)).toBe(expected);
  });
});
