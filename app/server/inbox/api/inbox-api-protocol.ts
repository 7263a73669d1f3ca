/**
 * The inbox's read API as a script sees it, pure, in the order of a request: what it asks for
 * (which endpoint its path names, its query's parameters with valibot, the cursors that page
 * through issues and events, the bearer token it carries; anything it cannot be is a 400 or a
 * 404 with a short reason), then what it is answered: an issue and an event in the field names
 * of Sentry's own API where they fit (so a script written for Sentry's issues reads ours), and
 * a page of them with its `next` link and the `Link` header Sentry's paging sends. The front
 * door that reads the store between the two: ./inbox-api.server.ts; the API's contract:
 * docs/local-inbox.md; Sentry's shapes: https://docs.sentry.io/api/events/list-a-projects-issues/
 */
import * as v from 'valibot';
import type {
  IssueDetail,
  IssueSort,
  IssueSummary,
  ListedEvent,
} from '#app/server/inbox/store/inbox-reads.server';
import type { TriageState } from '#app/server/inbox/triage';
import { ISSUE_ORDER, ISSUE_SORTS, issueIdOf, MAX_FILTER_TEXT } from '../inbox-inputs';

/** Every path under it is the API's (an unknown one is its 404, not a page's). */
export const INBOX_API_BASE = '/errors/api';
/** Items a page holds unless `limit` says otherwise, and at most (Sentry's API pages by 100). */
export const DEFAULT_PAGE_LIMIT = 25;
export const MAX_PAGE_LIMIT = 100;

export type InboxApiRoute =
  | { kind: 'issues' }
  | { kind: 'issue'; issueId: number }
  | { kind: 'events'; issueId: number };

/** A request the API refuses before reading anything: its status and why. */
export interface ApiRefusal {
  status: 400 | 404;
  detail: string;
}

/** Whether the API answers `path` (a request path without its query). */
export function isInboxApiPath(path: string): boolean {
  return path === INBOX_API_BASE || path.startsWith(`${INBOX_API_BASE}/`);
}

/**
 * The endpoint a path of the API names. A trailing slash is taken, as Sentry's own paths have
 * one; an id that cannot be an issue's is a 400, a path that names no endpoint a 404.
 */
export function inboxApiRouteOf(path: string): InboxApiRoute | ApiRefusal {
  const parts = path.slice(INBOX_API_BASE.length).replace(/\/$/, '').split('/').slice(1);
  if (parts[0] !== 'issues' || parts.length > 3) return NO_ENDPOINT;
  if (parts.length === 1) return { kind: 'issues' };
  if (parts.length === 3 && parts[2] !== 'events') return NO_ENDPOINT;
  const issueId = issueIdOf(parts[1] ?? '');
  if (issueId === undefined) {
    return { status: 400, detail: 'the issue id must be a positive whole number' };
  }
  return parts.length === 2 ? { kind: 'issue', issueId } : { kind: 'events', issueId };
}

const NO_ENDPOINT: ApiRefusal = {
  status: 404,
  detail: 'no such endpoint: the API has /errors/api/issues, /issues/<id> and /issues/<id>/events',
};

/** What a page of issues asks for. */
export interface IssuesParams {
  /** The list's search syntax (../issue-search.ts); unset is the list's default. */
  query?: string;
  sort: IssueSort;
  limit: number;
  /** ISSUE_ORDER[sort]'s values of the last issue of the page before. */
  after?: number[];
}

/** What a page of an issue's events asks for. */
export interface EventsParams {
  limit: number;
  /** The last event of the page before: the page starts after it. */
  before?: string;
}

/** Longest issue cursor: a sort's name and three numbers of at most 16 digits. */
const MAX_CURSOR = 80;

const limit = v.optional(
  v.pipe(
    v.string('limit must be a number'),
    v.regex(/^\d{1,3}$/, `limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}`),
    v.transform(Number),
    v.minValue(1, `limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}`),
    v.maxValue(MAX_PAGE_LIMIT, `limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}`),
  ),
  String(DEFAULT_PAGE_LIMIT),
);

const IssuesQuery = v.object({
  query: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(MAX_FILTER_TEXT, `query is longer than ${MAX_FILTER_TEXT} characters`),
    ),
  ),
  sort: v.optional(
    v.picklist(ISSUE_SORTS, `sort must be one of ${ISSUE_SORTS.join(', ')}`),
    'last-seen',
  ),
  limit,
  cursor: v.optional(v.pipe(v.string(), v.maxLength(MAX_CURSOR, 'cursor is not one of ours'))),
});

const EventsQuery = v.object({
  limit,
  cursor: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/, 'cursor is not one of ours'))),
});

/** The parameters of `GET /errors/api/issues`; an empty value is unset, an unknown key ignored. */
export function issuesParamsOf(search: URLSearchParams): IssuesParams | ApiRefusal {
  const parsed = v.safeParse(
    IssuesQuery,
    givenParams(search, ['query', 'sort', 'limit', 'cursor']),
  );
  if (!parsed.success) return badRequest(parsed.issues);
  const { query, sort, cursor } = parsed.output;
  const params: IssuesParams = { sort, limit: parsed.output.limit };
  if (query !== undefined) params.query = query;
  if (cursor !== undefined) {
    const position = issueCursorOf(cursor);
    if (position === undefined) return { status: 400, detail: 'cursor is not one of ours' };
    if (position.sort !== sort) {
      return { status: 400, detail: `cursor was made for sort=${position.sort}, not ${sort}` };
    }
    params.after = position.values;
  }
  return params;
}

/** The parameters of `GET /errors/api/issues/<id>/events`. */
export function eventsParamsOf(search: URLSearchParams): EventsParams | ApiRefusal {
  const parsed = v.safeParse(EventsQuery, givenParams(search, ['limit', 'cursor']));
  if (!parsed.success) return badRequest(parsed.issues);
  const { limit: size, cursor } = parsed.output;
  return cursor === undefined ? { limit: size } : { limit: size, before: cursor };
}

/** The keys asked for, each its first value, empty ones left out (as a plain GET form sends). */
function givenParams(search: URLSearchParams, keys: readonly string[]): Record<string, string> {
  const given: Record<string, string> = {};
  for (const key of keys) {
    const value = search.get(key);
    if (value !== null && value !== '') given[key] = value;
  }
  return given;
}

function badRequest(issues: readonly v.BaseIssue<unknown>[]): ApiRefusal {
  return { status: 400, detail: issues[0]?.message ?? 'bad request' };
}

/**
 * An issue cursor: the sort, then ISSUE_ORDER[sort]'s values of the page's last issue, colons
 * between (`last-seen:1732761600000:42`, `count:17:1732761600000:42`). Readable on purpose: a
 * script's log says where it was. Keyset, not an offset, so that new issues arriving at the top
 * of the list while a script walks it shift nothing (decision 1231).
 */
export function issueCursorFor(sort: IssueSort, values: readonly number[]): string {
  return [sort, ...values].join(':');
}

/** The sort and values an issue cursor holds, or undefined when it is not one. */
export function issueCursorOf(cursor: string): { sort: IssueSort; values: number[] } | undefined {
  const [name, ...rest] = cursor.split(':');
  const sort = ISSUE_SORTS.find((known) => known === name);
  if (sort === undefined || rest.length !== ISSUE_ORDER[sort].length) return undefined;
  if (!rest.every((value) => /^(?:0|[1-9]\d{0,15})$/.test(value))) return undefined;
  const values = rest.map(Number);
  return values.every(Number.isSafeInteger) ? { sort, values } : undefined;
}

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750, the scheme in any case):
 * `undefined` when there is none or it names another scheme (the request is judged by its
 * session, as a page's is), `null` when a Bearer header holds no token in its form.
 */
export function bearerTokenOf(header: string | undefined): string | null | undefined {
  if (header === undefined || !/^Bearer(?: |$)/i.test(header)) return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match ? (match[1] as string) : null;
}

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
