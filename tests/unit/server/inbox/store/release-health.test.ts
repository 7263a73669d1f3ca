import { describe, expect, it } from 'vitest';
import { releaseHealthOf, type SessionCounts } from '#app/server/inbox/store/inbox-reads.server';

const counts = (given: Partial<SessionCounts>): SessionCounts => ({
  release: 'app@1',
  environment: 'production',
  sessions: 0,
  errored: 0,
  unhandled: 0,
  crashed: 0,
  abnormal: 0,
  ...given,
});

describe('releaseHealthOf: the parts Sentry shows, from the counts Relay keeps', () => {
  it.each([
    {
      name: 'healthy sessions only',
      given: { sessions: 4 },
      parts: { healthy: 4, errored: 0, unhandled: 0, crashed: 0, abnormal: 0 },
      crashFree: 1,
      unhandledRate: 0,
    },
    {
      // A browser page whose error nobody caught: `unhandled` (errored too, in Relay's set).
      name: 'an unhandled session is its own part, not an errored one, and not a crash',
      given: { sessions: 4, errored: 1, unhandled: 1 },
      parts: { healthy: 3, errored: 0, unhandled: 1, crashed: 0, abnormal: 0 },
      crashFree: 1,
      unhandledRate: 0.25,
    },
    {
      name: 'a handled error is errored',
      given: { sessions: 4, errored: 1 },
      parts: { healthy: 3, errored: 1, unhandled: 0, crashed: 0, abnormal: 0 },
      crashFree: 1,
      unhandledRate: 0,
    },
    {
      // A server SDK's unhandled error ends the process: `crashed`, the crash-free rate's count.
      name: 'a crashed session counts against the crash-free rate',
      given: { sessions: 8, errored: 2, crashed: 1 },
      parts: { healthy: 6, errored: 1, unhandled: 0, crashed: 1, abnormal: 0 },
      crashFree: 1 - 1 / 8,
      unhandledRate: 0,
    },
    {
      name: 'abnormal is its own part and not a crash',
      given: { sessions: 5, errored: 1, abnormal: 1 },
      parts: { healthy: 4, errored: 0, unhandled: 0, crashed: 0, abnormal: 1 },
      crashFree: 1,
      unhandledRate: 0,
    },
    {
      name: 'every kind at once',
      given: { sessions: 10, errored: 6, unhandled: 2, crashed: 1, abnormal: 1 },
      parts: { healthy: 4, errored: 2, unhandled: 2, crashed: 1, abnormal: 1 },
      crashFree: 0.9,
      unhandledRate: 0.2,
    },
    {
      // Outcomes of sessions whose start was not counted (started before a clear).
      name: 'outcomes past the sessions started, worst first, never past the total',
      given: { sessions: 2, errored: 5, unhandled: 2, crashed: 1 },
      parts: { healthy: 0, errored: 0, unhandled: 1, crashed: 1, abnormal: 0 },
      crashFree: 0.5,
      unhandledRate: 0.5,
    },
  ])('$name', ({ given, parts, crashFree, unhandledRate }) => {
    const health = releaseHealthOf(counts(given));
    expect(health).toMatchObject(parts);
    expect(
      health.healthy + health.errored + health.unhandled + health.crashed + health.abnormal,
    ).toBe(health.sessions);
    expect(health.crashFreeRate).toBeCloseTo(crashFree);
    expect(health.unhandledRate).toBeCloseTo(unhandledRate);
  });

  it('has no rates without sessions, and outcomes alone are no sessions', () => {
    const health = releaseHealthOf(counts({ errored: 1, crashed: 1 }));
    expect(health).toMatchObject({ sessions: 0, healthy: 0, crashed: 0, errored: 0 });
    expect(health.crashFreeRate).toBeUndefined();
    expect(health.unhandledRate).toBeUndefined();
  });
});
