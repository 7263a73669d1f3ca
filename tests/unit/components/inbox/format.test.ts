import { describe, expect, it } from 'vitest';
import { countOf, timeAgo, usersOf } from '#app/components/inbox/format';

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

describe('usersOf', () => {
  it.each([
    [0, false, '0 users'],
    [1, false, '1 user'],
    [3, false, '3 users'],
    [1_000, false, '1,000 users'],
    [1_000, true, '1,000+ users'],
  ])('%i users, past the cap %s: %s', (users, pastCap, expected) => {
    expect(usersOf(users, pastCap)).toBe(expected);
  });
});

describe('timeAgo', () => {
  const NOW = Date.UTC(2026, 10, 26, 12, 30);
  it.each([
    [0, 'just now'],
    [9_999, 'just now'],
    [-60_000, 'just now'],
    [10_000, '10 seconds ago'],
    [59_999, '59 seconds ago'],
    [60_000, '1 minute ago'],
    [3 * 60_000 + 59_000, '3 minutes ago'],
    [2 * 3_600_000, '2 hours ago'],
    [86_400_000, '1 day ago'],
    [8 * 86_400_000, '1 week ago'],
    [45 * 86_400_000, '1 month ago'],
    [400 * 86_400_000, '1 year ago'],
  ])('%i ms ago: %s', (ago, expected) => {
    expect(timeAgo(NOW - ago, NOW)).toBe(expected);
  });
});
