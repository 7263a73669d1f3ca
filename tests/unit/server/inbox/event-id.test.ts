import { describe, expect, it } from 'vitest';
import { normalEventId } from '#app/server/inbox/event-id';

describe('normalEventId', () => {
  it.each([
    ['abcdef0123456789abcdef0123456789', 'abcdef0123456789abcdef0123456789'],
    ['ABCDEF0123456789ABCDEF0123456789', 'abcdef0123456789abcdef0123456789'],
    ['abcdef01-2345-6789-abcd-ef0123456789', 'abcdef0123456789abcdef0123456789'],
  ])('reads %s as the stored id', (id, stored) => {
    expect(normalEventId(id)).toBe(stored);
  });

  it.each(['', 'abc', 'g'.repeat(32), 'a/b?c#d', `${'a'.repeat(32)}-`.repeat(2), 'a'.repeat(33)])(
    'refuses %j',
    (id) => {
      expect(normalEventId(id)).toBeUndefined();
    },
  );
});
