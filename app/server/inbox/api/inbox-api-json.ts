/**
 * What the inbox's read API answers, one flow: an issue and an event in the field names of
 * Sentry's own API where they fit (so a script written for Sentry's issues reads ours), then a
 * page of them with its `next` link and the `Link` header Sentry's paging sends. Pure: the
 * front door (./inbox-api.server.ts) hands in what the store read and where links point.
 * Sentry's shapes: https://docs.sentry.io/api/events/list-a-projects-issues/
 */
import type {
  IssueDetail,
  IssueSummary,
  ListedEvent,
} from '#app/server/inbox/store/inbox-reads.server';
import type { TriageState } from '#app/server/inbox/triage';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Makes a path of the app a link: absolute under PUBLIC_URL, else the path itself. */
export type LinkOf = (path: string) => string;

/** `[bucket start in seconds since the epoch, events]`, oldest first, as Sentry's `stats`. */
export type StatsBucket = [number, number];

export interface ApiIssue {
  /** The issue's id, a string of digits as Sentry's. */
  id: string;
  title: string;
  culprit: string;
  level: string;
  status: 'unresolved' | 'resolved' | 'ignored';
  /** `regressed`: seen again after it was resolved (unresolved since); else null. */
  substatus: 'regressed' | null;
  /**
   * How long it stays ignored, or that it was resolved in the next release, in Sentry's names:
   * `ignoreUntil` (ISO), `ignoreCount` / `ignoreUserCount` (how many more it was muted for),
   * `inNextRelease`; empty otherwise.
   */
  statusDetails: StatusDetails;
  /** Events counted, a string of digits as Sentry's. */
  count: string;
  /** Distinct users its events named (a floor past the inbox's cap per issue). */
  userCount: number;
  firstSeen: string;
  lastSeen: string;
  /** The issue's page in the inbox. */
  permalink: string;
  /** Events per hour for the last 24 hours. */
  stats: { '24h': StatsBucket[] };
}

export interface StatusDetails {
  ignoreUntil?: string;
  ignoreCount?: number;
  ignoreUserCount?: number;
  inNextRelease?: true;
}

export interface ApiIssueDetail extends ApiIssue {
  stats: { '24h': StatsBucket[]; '30d': StatsBucket[] };
  firstRelease: { version: string } | null;
  lastRelease: { version: string } | null;
  /** Tag keys with their values' counts, most frequent first, as Sentry's `tags`. */
  tags: Array<{
    key: string;
    totalValues: number;
    topValues: Array<{ value: string; count: number }>;
  }>;
  /** Of its events, how many the inbox still keeps whole (the events endpoint lists them). */
  storedEvents: number;
}

export interface ApiEvent {
  /** The event's id, as `eventID` (Sentry's events have both). */
  id: string;
  eventID: string;
  /** Its issue's id. */
  groupID: string;
  /** When it happened (the event's own timestamp, as the inbox normalised it). */
  dateCreated: string;
  /** When the inbox received it. */
  dateReceived: string;
  environment: string;
  release: string;
  /** The event's page in the inbox. */
  permalink: string;
  /** The event as the inbox stored it (normalised as Relay would); null if it cannot be read. */
  payload: Record<string, unknown> | null;
}

/** A page of issues or events: `next` is where the following page is, null on the last. */
export interface ApiPage<Item> {
  data: Item[];
  next: string | null;
}

export function apiIssueOf(issue: IssueSummary, now: number, linkOf: LinkOf): ApiIssue {
  return {
    id: String(issue.id),
    title: issue.title,
    culprit: issue.culprit,
    level: issue.level,
    status: issue.status,
    substatus: issue.regressed ? 'regressed' : null,
    statusDetails: statusDetailsOf(issue.status, issue.triage),
    count: String(issue.count),
    userCount: issue.users,
    firstSeen: isoOf(issue.firstSeen),
    lastSeen: isoOf(issue.lastSeen),
    permalink: linkOf(`/errors/issues/${issue.id}`),
    stats: { '24h': buckets(issue.hourly, Math.floor(now / HOUR_MS), HOUR_MS) },
  };
}

/** Sentry's statusDetails of what triage set, for the status the issue has now. */
function statusDetailsOf(status: IssueSummary['status'], triage: TriageState): StatusDetails {
  if (status === 'resolved' && triage.status === 'resolved' && triage.inNextRelease) {
    return { inNextRelease: true };
  }
  if (status !== 'ignored' || triage.status !== 'ignored' || triage.mute === undefined) return {};
  const mute = triage.mute;
  switch (mute.kind) {
    case 'time':
      return { ignoreUntil: isoOf(mute.target) };
    case 'events':
      return { ignoreCount: mute.count };
    case 'users':
      return { ignoreUserCount: mute.count };
  }
}

export function apiIssueDetailOf(issue: IssueDetail, now: number, linkOf: LinkOf): ApiIssueDetail {
  const summary = apiIssueOf(issue, now, linkOf);
  return {
    ...summary,
    stats: { ...summary.stats, '30d': buckets(issue.daily, Math.floor(now / DAY_MS), DAY_MS) },
    firstRelease: issue.firstRelease === '' ? null : { version: issue.firstRelease },
    lastRelease: issue.lastRelease === '' ? null : { version: issue.lastRelease },
    tags: issue.tags.map((tag) => ({
      key: tag.key,
      totalValues: tag.total,
      topValues: tag.values.map(({ value, count }) => ({ value, count })),
    })),
    storedEvents: issue.storedEvents,
  };
}

/**
 * `counts`, oldest first, ending with the bucket that holds now (`lastBucket`, counted in
 * `size` from the epoch), each with its start in seconds.
 */
function buckets(counts: readonly number[], lastBucket: number, size: number): StatsBucket[] {
  const first = lastBucket - counts.length + 1;
  return counts.map((count, i) => [((first + i) * size) / 1000, count]);
}

export function apiEventOf(
  issueId: number,
  event: ListedEvent,
  payload: Record<string, unknown> | undefined,
  linkOf: LinkOf,
): ApiEvent {
  // Normalised at ingest: seconds since the epoch (../normalise-event.ts).
  const timestamp = payload?.timestamp;
  return {
    id: event.eventId,
    eventID: event.eventId,
    groupID: String(issueId),
    dateCreated: isoOf(
      typeof timestamp === 'number' && Number.isFinite(timestamp)
        ? timestamp * 1000
        : event.receivedAt,
    ),
    dateReceived: isoOf(event.receivedAt),
    environment: event.environment,
    release: event.release,
    permalink: linkOf(`/errors/issues/${issueId}?event=${event.eventId}`),
    payload: payload ?? null,
  };
}

/**
 * The `Link` header of a page with a next one, as Sentry's API sends it (`rel="next";
 * results="true"; cursor="…"`): scripts written for Sentry's paging follow it as they are.
 */
export function linkHeaderOf(next: string, cursor: string): string {
  return `<${next}>; rel="next"; results="true"; cursor="${cursor}"`;
}

/** The request's own path and parameters, with `cursor` in place of the one it had. */
export function nextPathOf(path: string, search: URLSearchParams, cursor: string): string {
  const params = new URLSearchParams(search);
  params.set('cursor', cursor);
  return `${path}?${params}`;
}

function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}
