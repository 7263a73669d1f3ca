import { isRateLimited, updateRateLimits } from '@sentry/core';
import { describe, expect, it } from 'vitest';

// The seed asks for a 60 s back-off after a 429 that names no limits. That is the SDK's own
// default (DEFAULT_RETRY_AFTER), kept on purpose: this pins it against an SDK upgrade.
describe('the back-off after a 429 without headers', () => {
  const now = 1_000_000;
  const limits = updateRateLimits(
    {},
    { statusCode: 429, headers: { 'x-sentry-rate-limits': null, 'retry-after': null } },
    now,
  );

  it.each([
    [0, true],
    [59_999, true],
    [60_000, false],
    [61_000, false],
  ])('%i ms later, rate limited: %s', (elapsed, limited) => {
    expect(isRateLimited(limits, 'error', now + elapsed)).toBe(limited);
  });

  it('applies to every category, sessions and spans included', () => {
    expect(isRateLimited(limits, 'session', now + 1)).toBe(true);
    expect(isRateLimited(limits, 'span', now + 1)).toBe(true);
  });
});
