/**
 * How the inbox writes counts and times: the small formatting rules every inbox view shares.
 */
import type { TriageState } from '#app/server/inbox/triage';

/** "1 envelope", "3 envelopes": a count with its noun, for page text. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/**
 * Times on the inbox pages, always in UTC: the server renders them and the browser
 * hydrates them, so a local time zone would make the two disagree.
 */
export function formatUtc(time: string | number | undefined): string {
  if (time === undefined || time === '') return 'unknown time';
  const date = new Date(time);
  if (Number.isNaN(date.getTime())) return 'unknown time';
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** The `dateTime` of a `<time>`: ISO, or nothing for a time that is not one. */
export function isoOf(time: string | number | undefined): string | undefined {
  if (time === undefined || time === '') return undefined;
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * "1 user", "3 users", "1,000+ users" once an issue's users went past the cap it keeps (the
 * count is then a floor, and says so).
 */
export function usersOf(users: number, pastCap: boolean): string {
  const count = users.toLocaleString('en');
  if (pastCap) return `${count}+ users`;
  return users === 1 ? '1 user' : `${count} users`;
}

const UNITS: Array<[unit: Intl.RelativeTimeFormatUnit, ms: number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'always' });

/**
 * "3 minutes ago", from `now` (the server's, sent with the page, so the server and the browser
 * write the same words): the largest whole unit, "just now" under ten seconds. A time after
 * `now` (a clock ahead) reads as just now.
 */
export function timeAgo(time: number, now: number): string {
  const elapsed = now - time;
  if (elapsed < 10_000) return 'just now';
  for (const [unit, ms] of UNITS) {
    if (elapsed >= ms) return relative.format(-Math.floor(elapsed / ms), unit);
  }
  return 'just now';
}

/**
 * What triage set, in words, while it holds: "Ignored until 2026-11-28 14:00:00 UTC", "Ignored
 * until 100 more events (37 so far)", "Resolved in next release (after 1.2.3)". Undefined when
 * there is nothing to add to the status (a plain resolve or ignore, or a time mute that passed).
 */
export function triageNoteOf(issue: {
  status: TriageState['status'];
  triage: TriageState;
  count: number;
  users: number;
}): string | undefined {
  const { triage } = issue;
  if (triage.status === 'resolved' && triage.inNextRelease) {
    const after = triage.inNextRelease.after;
    return `Resolved in next release (after ${after === '' ? 'no release' : after})`;
  }
  // `status` is the issue's now: a time mute that passed shows as unresolved.
  if (issue.status !== 'ignored' || triage.status !== 'ignored' || !triage.mute) return undefined;
  const { mute } = triage;
  if (mute.kind === 'time') return `Ignored until ${formatUtc(mute.target)}`;
  const current = mute.kind === 'events' ? issue.count : issue.users;
  const soFar = Math.max(0, current - (mute.target - mute.count));
  const noun = mute.kind === 'events' ? 'event' : 'user';
  return `Ignored until ${countOf(mute.count, `more ${noun}`, `more ${noun}s`)} (${soFar} so far)`;
}
