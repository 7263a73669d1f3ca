import { describe, expect, it } from 'vitest';
import { countOf } from '#app/components/inbox/format';

describe('countOf', () => {
  it.each([
    [0, 'envelope', undefined, '0 envelopes'],
    [1, 'envelope', undefined, '1 envelope'],
    [2, 'stored envelope', undefined, '2 stored envelopes'],
    [1, 'entry', 'entries', '1 entry'],
    [5, 'entry', 'entries', '5 entries'],
  ])('%i %s -> %s', (count, singular, plural, expected) => {
    expect(countOf(count, singular, plural)).toBe(expected);
  });
});
