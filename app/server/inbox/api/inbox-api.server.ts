/**
 * The inbox's read API for scripts (`GET /errors/api/issues…`), one front door for the built
 * server's entry (app/server/node/node-server.server.ts, once the early refusals are done) and
 * the SSR router's hook under `vinxi dev` (app/start-1.120/dev-front-door.server.ts). It
 * reads as a request's path: method → mode → access (the inbox's session, or its token as a
 * bearer, under the sign-in limit) → endpoint → parameters → the store → JSON. Plain node:http
 * and synchronous store reads, no render: why a door and not a Start route, decision 1230.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createEvent, getCookie } from 'vinxi/http';
import { type ServerConfig, serverConfig } from '#app/server/env.server';
import { errorLimited } from '#app/server/logging/rate-limited-log';
import { pathOf } from '#app/server/node/request-triage.server';
import { requestClientKey } from '#app/server/security/client-key';
import {
  attemptInboxToken,
  INBOX_SESSION_COOKIE,
  inboxAccessOfRequest,
} from '../inbox-access.server';
import { storedEventOf } from '../inbox-event';
import { ISSUE_ORDER } from '../inbox-inputs';
import type { InboxDatabase } from '../store/inbox-database.server';
import { localInbox } from '../store/local-inbox.server';
import {
  type ApiEvent,
  type ApiIssue,
  type ApiPage,
  type ApiRefusal,
  apiEventOf,
  apiIssueDetailOf,
  apiIssueOf,
  bearerTokenOf,
  eventsParamsOf,
  type InboxApiRoute,
  inboxApiRouteOf,
  isInboxApiPath,
  issueCursorFor,
  issuesParamsOf,
  type LinkOf,
  linkHeaderOf,
  nextPathOf,
} from './inbox-api-protocol';

/** Answers the request if its path is the API's, and says whether it did. */
export function inboxApiDoor(req: IncomingMessage, res: ServerResponse): boolean {
  const path = pathOf(req.url ?? '/');
  if (!isInboxApiPath(path)) return false;
  try {
    answer(req, res, path);
  } catch (error) {
    // A store that fails mid-read (a disk error, a busy lock past its timeout): the script gets
    // a 500 it can retry, the server goes on.
    errorLimited(
      'inbox api failed',
      `[inbox] ${req.method} ${path} failed: ${(error as Error).message}`,
    );
    if (!res.headersSent) send(res, 500, { detail: 'the inbox could not be read' });
  }
  return true;
}

/** What the API answers, with its status and headers. */
interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

function answer(req: IncomingMessage, res: ServerResponse, path: string): void {
  const { status, body, headers } = answerOf(req, res, path);
  send(res, status, body, headers);
}

function answerOf(req: IncomingMessage, res: ServerResponse, path: string): Answer {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return {
      status: 405,
      body: { detail: 'the inbox API only reads: GET' },
      headers: { allow: 'GET, HEAD' },
    };
  }
  const config = serverConfig();
  // As /errors: with Sentry there is no inbox to read.
  if (config.monitoring.kind !== 'local-inbox') {
    return { status: 404, body: { detail: 'no local inbox: errors go to Sentry (SENTRY_DSN)' } };
  }
  const refused = accessRefusal(req, res, config);
  if (refused) return refused;
  const route = inboxApiRouteOf(path);
  if ('status' in route) return refusal(route);
  const inbox = localInbox();
  const problem = inbox.problem();
  if (problem) return { status: 503, body: { detail: `the inbox cannot be read: ${problem}` } };
  const search = new URLSearchParams((req.url ?? '').slice(path.length + 1));
  const linkOf: LinkOf = (to) => (config.publicUrl ? new URL(to, config.publicUrl).href : to);
  return endpointAnswer(route, { db: inbox.db(), path, search, linkOf, now: Date.now() });
}

/**
 * Why the request may not read the inbox, or undefined when it may. A bearer token, when one is
 * given, is what is judged (a wrong one is refused whatever the cookie says); else the request's
 * session, or this machine when MONITORING_INBOX_TRUST_LOOPBACK says so, as for the pages.
 */
function accessRefusal(
  req: IncomingMessage,
  res: ServerResponse,
  config: ServerConfig,
): Answer | undefined {
  const access = config.inboxAccess;
  if (access.kind === 'open') return undefined;
  const bearer = bearerTokenOf(req.headers.authorization);
  if (bearer === null) {
    return unauthorized('the Authorization header holds no bearer token', 'invalid_request');
  }
  if (bearer !== undefined) {
    const attempt = attemptInboxToken(requestClientKey(req), bearer, access.token);
    if (attempt.outcome === 'accepted') return undefined;
    if (attempt.outcome === 'wrong') return unauthorized('wrong token', 'invalid_token');
    return {
      status: 429,
      body: { detail: 'too many wrong tokens from your address: try again later' },
      headers: { 'retry-after': String(attempt.retryAfterSeconds) },
    };
  }
  const session = getCookie(createEvent(req, res), INBOX_SESSION_COOKIE);
  if (inboxAccessOfRequest(req.headers, session) !== 'sign-in') return undefined;
  return unauthorized(
    'sign in: Authorization: Bearer <MONITORING_INBOX_TOKEN>, or the inbox session cookie',
  );
}

/** 401 with the challenge RFC 6750 asks for (its error code when a token was wrong). */
function unauthorized(detail: string, error?: 'invalid_request' | 'invalid_token'): Answer {
  const challenge = `Bearer realm="inbox"${error ? `, error="${error}"` : ''}`;
  return { status: 401, body: { detail }, headers: { 'www-authenticate': challenge } };
}

function refusal({ status, detail }: ApiRefusal): Answer {
  return { status, body: { detail } };
}

interface Reading {
  db: InboxDatabase;
  /** The request's path and parameters, for its `next` link. */
  path: string;
  search: URLSearchParams;
  linkOf: LinkOf;
  now: number;
}

function endpointAnswer(route: InboxApiRoute, reading: Reading): Answer {
  const { db, now, linkOf } = reading;
  if (route.kind === 'issues') return issuesPage(reading);
  const issue = db.issue(route.issueId, now);
  if (!issue) return { status: 404, body: { detail: `no issue ${route.issueId}` } };
  if (route.kind === 'issue') return { status: 200, body: apiIssueDetailOf(issue, now, linkOf) };
  return eventsPage(route.issueId, reading);
}

/**
 * A page of the issues the search finds, in the list's order: one more than asked is read, so
 * that whether a next page exists is known without counting from the cursor on.
 */
function issuesPage({ db, path, search, linkOf, now }: Reading): Answer {
  const params = issuesParamsOf(search);
  if ('status' in params) return refusal(params);
  const { sort, limit, query, after } = params;
  const list = db.listIssues({
    sort,
    page: 1,
    pageSize: limit + 1,
    now,
    ...(query === undefined ? {} : { search: query }),
    ...(after === undefined ? {} : { after }),
  });
  if (list.problems.length > 0) {
    return { status: 400, body: { detail: `query: ${list.problems.join('; ')}` } };
  }
  const issues = list.issues.slice(0, limit);
  const last = issues[issues.length - 1];
  const cursor =
    list.issues.length > limit && last
      ? issueCursorFor(
          sort,
          ISSUE_ORDER[sort].map((field) => last[field]),
        )
      : undefined;
  const page: ApiPage<ApiIssue> = {
    data: issues.map((issue) => apiIssueOf(issue, now, linkOf)),
    next: null,
  };
  // Sentry's count of every match, whichever page this is.
  return paged(page, { 'x-hits': String(list.total) }, path, search, linkOf, cursor);
}

/** A page of an issue's stored events, newest first, each with its payload. */
function eventsPage(issueId: number, { db, path, search, linkOf }: Reading): Answer {
  const params = eventsParamsOf(search);
  if ('status' in params) return refusal(params);
  const listed = db.issueEvents(issueId, params);
  // The cursor's event is not this issue's, or no longer stored (evicted since).
  if (!listed)
    return { status: 400, body: { detail: 'cursor names no stored event of this issue' } };
  const page: ApiPage<ApiEvent> = {
    data: listed.events.map((event) =>
      apiEventOf(issueId, event, payloadOf(db, issueId, event.eventId), linkOf),
    ),
    next: null,
  };
  return paged(page, {}, path, search, linkOf, listed.nextBefore);
}

function paged<Item>(
  page: ApiPage<Item>,
  headers: Record<string, string>,
  path: string,
  search: URLSearchParams,
  linkOf: LinkOf,
  cursor: string | undefined,
): Answer {
  if (cursor === undefined) return { status: 200, body: page, headers };
  const next = linkOf(nextPathOf(path, search, cursor));
  return {
    status: 200,
    body: { ...page, next },
    headers: { ...headers, link: linkHeaderOf(next, cursor) },
  };
}

/** The stored event's JSON; undefined if it is gone since it was listed, or unreadable. */
function payloadOf(
  db: InboxDatabase,
  issueId: number,
  eventId: string,
): Record<string, unknown> | undefined {
  const stored = db.event(issueId, eventId);
  if (!stored) return undefined;
  try {
    return storedEventOf(stored.payload);
  } catch {
    return undefined;
  }
}

/** JSON, never stored by a cache, never sniffed as anything else. */
function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}
