/**
 * What a request to the inbox's read API asks for, one flow: which endpoint its path names, its
 * query's parameters (valibot), the cursors that page through issues and events, and the bearer
 * token it carries. Anything it cannot be is a 400 or a 404 with a short reason. Pure.
 * The front door that answers it: ./inbox-api.server.ts; the API's contract: docs/local-inbox.md.
 */
import * as v from 'valibot';
import type { IssueSort } from '#app/server/inbox/store/inbox-reads.server';
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
