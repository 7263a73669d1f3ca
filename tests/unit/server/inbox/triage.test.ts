import { describe, expect, it } from 'vitest';
import { releaseIsNewer } from '#app/server/inbox/store/inbox-database.server';
import {
  type Mute,
  type MuteChoice,
  muteEnded,
  muteOf,
  regresses,
  statusNow,
  TRIAGE_ACTIONS,
  type TriageState,
} from '#app/server/inbox/triage';

const NOW = Date.UTC(2026, 10, 28, 12, 0);
const HOUR = 3_600_000;
const at = { now: NOW, events: 40, users: 3 };

describe('muteOf', () => {
  it.each<[string, MuteChoice, Mute | undefined]>([
    ['forever', { kind: 'forever' }, undefined],
    ['for an hour', { kind: 'for', ms: HOUR }, { kind: 'time', target: NOW + HOUR }],
    [
      '100 more events',
      { kind: 'events', count: 100 },
      { kind: 'events', target: 140, count: 100 },
    ],
    ['10 more users', { kind: 'users', count: 10 }, { kind: 'users', target: 13, count: 10 }],
  ])('%s', (_, choice, mute) => {
    expect(muteOf(choice, at)).toEqual(mute);
  });

  it('offers the presets the forms send', () => {
    expect(TRIAGE_ACTIONS['ignore-30m']).toEqual({
      kind: 'ignore',
      mute: { kind: 'for', ms: HOUR / 2 },
    });
    expect(TRIAGE_ACTIONS['ignore-1w']).toEqual({
      kind: 'ignore',
      mute: { kind: 'for', ms: 7 * 24 * HOUR },
    });
  });
});

describe('muteEnded', () => {
  const time: Mute = { kind: 'time', target: NOW };
  const events: Mute = { kind: 'events', target: 140, count: 100 };
  const users: Mute = { kind: 'users', target: 13, count: 10 };
  it.each<[string, Mute, { now: number; events: number; users: number }, boolean]>([
    ['a time mute before its time', time, { ...at, now: NOW - 1 }, false],
    ['a time mute at its time', time, at, true],
    ['a time mute after it', time, { ...at, now: NOW + HOUR }, true],
    ['an events mute one short', events, { ...at, events: 139 }, false],
    ['an events mute at its count', events, { ...at, events: 140 }, true],
    ['an events mute does not end on users', events, { ...at, events: 41, users: 99 }, false],
    ['a users mute one short', users, { ...at, users: 12 }, false],
    ['a users mute at its count', users, { ...at, users: 13 }, true],
    ['a users mute does not end on time', users, { ...at, now: NOW + 100 * HOUR }, false],
  ])('%s: %s', (_, mute, now, ended) => {
    expect(muteEnded(mute, now)).toBe(ended);
  });
});

describe('statusNow', () => {
  it.each<[string, TriageState, number, string]>([
    ['unresolved', { status: 'unresolved' }, NOW, 'unresolved'],
    ['resolved', { status: 'resolved' }, NOW, 'resolved'],
    ['ignored forever', { status: 'ignored' }, NOW + 1000 * HOUR, 'ignored'],
    [
      'a time mute still on',
      { status: 'ignored', mute: { kind: 'time', target: NOW } },
      NOW - 1,
      'ignored',
    ],
    [
      'a time mute passed',
      { status: 'ignored', mute: { kind: 'time', target: NOW } },
      NOW,
      'unresolved',
    ],
    // A volume mute ends only with the event that reaches it (in the store).
    [
      'an events mute',
      { status: 'ignored', mute: { kind: 'events', target: 1, count: 1 } },
      NOW,
      'ignored',
    ],
  ])('%s', (_, state, now, status) => {
    expect(statusNow(state, now)).toBe(status);
  });
});

describe('regresses', () => {
  const event = (over: Partial<Parameters<typeof regresses>[1]> = {}) => ({
    ...at,
    releaseIsNewer: () => false,
    ...over,
  });
  it.each<[string, TriageState, ReturnType<typeof event>, boolean]>([
    ['an unresolved issue', { status: 'unresolved' }, event(), false],
    ['a resolved issue, any event', { status: 'resolved' }, event(), true],
    [
      'resolved in the next release, an old release',
      { status: 'resolved', inNextRelease: { after: '1.2.3', at: NOW } },
      event(),
      false,
    ],
    [
      'resolved in the next release, a newer release',
      { status: 'resolved', inNextRelease: { after: '1.2.3', at: NOW } },
      event({ releaseIsNewer: () => true }),
      true,
    ],
    ['ignored forever', { status: 'ignored' }, event({ events: 1e9 }), false],
    [
      'ignored for a time, before it passed',
      { status: 'ignored', mute: { kind: 'time', target: NOW + 1 } },
      event(),
      false,
    ],
    [
      'ignored for a time, the first event after',
      { status: 'ignored', mute: { kind: 'time', target: NOW } },
      event(),
      true,
    ],
    [
      'ignored until 100 more events, the 100th',
      { status: 'ignored', mute: { kind: 'events', target: 40, count: 100 } },
      event(),
      true,
    ],
    [
      'ignored until 10 more users, one short',
      { status: 'ignored', mute: { kind: 'users', target: 4, count: 10 } },
      event(),
      false,
    ],
  ])('%s', (_, state, arriving, regressed) => {
    expect(regresses(state, arriving)).toBe(regressed);
  });
});

describe('releaseIsNewer', () => {
  const resolvedAt = NOW;
  it.each<[string, string, string, number | undefined, boolean]>([
    ['semver: a patch after', '1.2.4', '1.2.3', NOW - HOUR, true],
    ['semver: the same', '1.2.3', '1.2.3', undefined, false],
    ['semver: older, though first seen after', '1.2.2', '1.2.3', NOW + HOUR, false],
    ['semver: 1.10.0 after 1.9.0 (not by text)', '1.10.0', '1.9.0', NOW - HOUR, true],
    ['semver: a prerelease of the same is older', '1.2.3-rc.1', '1.2.3', undefined, false],
    ['semver with the package prefix', 'app@2.0.0', 'app@1.9.9', NOW - HOUR, true],
    ['semver with v', 'v1.3.0', '1.2.3', NOW - HOUR, true],
    // Not both semver (or other packages): by when the release was first seen.
    ['a build hash first seen after', 'abc123', 'def456', NOW + HOUR, true],
    ['a build hash seen before the resolution', 'abc123', 'def456', NOW - HOUR, false],
    ['a release never seen before', 'abc123', 'def456', undefined, true],
    ['other packages', 'api@1.0.0', 'app@2.0.0', NOW - HOUR, false],
    ['no release', '', '1.2.3', undefined, false],
    ['resolved with no release, an event of one', '1.0.0', '', undefined, true],
  ])('%s: %s after %s', (_, release, resolvedIn, firstSeen, newer) => {
    expect(releaseIsNewer(release, resolvedIn, { firstSeen, resolvedAt })).toBe(newer);
  });
});
