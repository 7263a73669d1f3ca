/**
 * The inbox's server functions: reading and acting on the inbox (issues, events, status,
 * clearing), then access to it (signing in and out). Both sit behind the /errors pages (local
 * inbox mode only), over the inbox database (./store/). With SENTRY_DSN set each throws
 * notFound(), so the pages answer 404. Inputs are validated with valibot; everything a page
 * receives goes through wellFormed().
 */
import { notFound, redirect } from '@tanstack/react-router';
import { createServerFn } from '@tanstack/react-start';
import { deleteCookie, getWebRequest, setCookie } from '@tanstack/react-start/server';
import * as v from 'valibot';
import { serverConfig } from '#app/server/env.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { formPostRefusalOf, refusalResponse } from '#app/server/security/state-change-guard';
import type { AlertHistoryEntry } from './alerts/alert-outbox.server';
import { normaliseEventId } from './envelope';
import { type ExceptionView, stackForDetail, topFramesFor } from './event-stack.server';
import {
  attemptInboxToken,
  currentClient,
  currentInboxAccess,
  currentSessionId,
  INBOX_SESSION_COOKIE,
  type InboxAccessDecision,
  inboxSessions,
  sessionCookieOptions,
} from './inbox-access.server';
import {
  type EventDetail,
  eventDetailOf,
  storedEventOf,
  type UnshownEvent,
  wellFormed,
} from './inbox-event';
import {
  ClearInboxInput,
  InboxEventInput,
  ISSUE_EVENTS_PAGE_SIZE,
  ISSUES_PAGE_SIZE,
  IssueInput,
  IssueListInput,
  issueListFiltersOf,
  SendTestAlertInput,
  type TriageFields,
  TriageInput,
  triageFieldsOf,
} from './inbox-inputs';
import { SESSION_MAX_AGE_MS } from './inbox-sessions.server';
import type { InboxDatabase, TriageTarget } from './store/inbox-database.server';
import type {
  ClearProgress,
  EventPage,
  IssueDetail,
  IssueList,
  IssueSummary,
  ReleaseHealth,
} from './store/inbox-reads.server';
import { type LocalInbox, localInbox } from './store/local-inbox.server';
import { TRIAGE_ACTIONS } from './triage';

/**
 * The inbox, for a request that may read it: a 404 with Sentry (there is no inbox), and a
 * redirect to the sign-in page for a request the inbox is private to (./inbox-access.server.ts).
 * `signedIn`: the request holds a session, so the page offers to sign out.
 */
function inboxOrNotFound(): { inbox: LocalInbox; signedIn: boolean } {
  if (serverConfig().monitoring.kind !== 'local-inbox') throw notFound();
  const access = currentInboxAccess();
  if (access === 'sign-in') throw redirect({ to: '/errors/sign-in' });
  return { inbox: localInbox(), signedIn: access === 'session' };
}

/** A page's answer when the store cannot be used: why, in the operator's words. */
export interface FailingInbox {
  kind: 'failing';
  problem: string;
  inboxDir: string;
  signedIn: boolean;
}

export interface ListedIssue extends IssueSummary {
  /** Where the latest event was thrown, through the build's source maps, when it resolves. */
  topFrame?: string;
}

export interface InboxIssues extends Omit<IssueList, 'issues'> {
  kind: 'ready';
  inboxDir: string;
  signedIn: boolean;
  issues: ListedIssue[];
  facets: { environments: string[]; releases: string[] };
  health: ReleaseHealth[];
  /** Items received by type (event, session, span, client_report, …). */
  itemCounts: Record<string, number>;
  totals: { issues: number; events: number; storedEvents: number };
  /** A clear under way, deleting in batches off the page thread. */
  clearing?: ClearProgress;
  /** The alert channels (`webhook <host>`) and each one's latest attempt; empty: none configured. */
  alertChannels: AlertChannelStatus[];
}

export interface AlertChannelStatus {
  name: string;
  latest?: { at: number; sent: boolean; reason: string | null };
}

export const listInboxIssues = createServerFn({ method: 'GET' })
  .validator(IssueListInput)
  .handler(async ({ data }): Promise<InboxIssues | FailingInbox> => {
    const { inbox, signedIn } = inboxOrNotFound();
    const problem = inbox.problem();
    if (problem) return wellFormed({ kind: 'failing', problem, inboxDir: inbox.dir, signedIn });
    const db = inbox.db();
    const list = db.listIssues({
      sort: data.sort ?? 'last-seen',
      status: data.status,
      environment: data.environment,
      release: data.release,
      search: data.search,
      page: data.page,
      pageSize: ISSUES_PAGE_SIZE,
      now: Date.now(),
    });
    const issues = await withTopFrames(db, list.issues);
    const clearing = db.clearProgress();
    // A clear or deletes that a stopped thread left (or another worker's): this process's thread
    // goes on.
    if ((clearing && !clearing.done) || db.deletesPending()) void inbox.ingestThread().upkeep();
    return wellFormed({
      ...(clearing && !clearing.done ? { clearing } : {}),
      kind: 'ready',
      ...list,
      issues,
      inboxDir: inbox.dir,
      signedIn,
      facets: db.facets(),
      health: db.releaseHealth(),
      itemCounts: { ...db.itemCounts() },
      totals: db.totals(),
      alertChannels: alertChannelStatuses(db),
    });
  });

/** The configured channels, each with its latest attempt (any worker's). */
function alertChannelStatuses(db: InboxDatabase): AlertChannelStatus[] {
  const latest = new Map(db.alerts.latestAttempts().map((attempt) => [attempt.channel, attempt]));
  return db.alerts.channels().map((name) => {
    const attempt = latest.get(name);
    return attempt
      ? { name, latest: { at: attempt.at, sent: attempt.sent, reason: attempt.reason } }
      : { name };
  });
}

/** Each issue's line from its latest event, for the issues on this page only. */
async function withTopFrames(db: InboxDatabase, issues: IssueSummary[]): Promise<ListedIssue[]> {
  const latest = db.latestEventIds(issues.map((issue) => issue.id));
  const refs = [...latest].map(([issueId, eventId]) => ({
    eventId,
    payload: () => db.event(issueId, eventId)?.payload,
  }));
  const labels = await topFramesFor(refs);
  return issues.map((issue) => {
    const topFrame = labels.get(latest.get(issue.id) ?? '');
    return topFrame ? { ...issue, topFrame } : issue;
  });
}

/** The event the issue page shows: its stack resolved and trimmed to what the page shows. */
export type ShownEvent = Omit<EventDetail, 'exceptions'> & {
  stack: ExceptionView[];
  /** When the inbox stored it, ms since the epoch. */
  receivedAt: number;
  /** Neighbours among the issue's stored events. */
  newerId?: string;
  olderId?: string;
  /** It is the issue's latest stored event. */
  latest: boolean;
};

export interface InboxIssue {
  kind: 'ready';
  signedIn: boolean;
  issue: IssueDetail;
  /** The UTC day of the histogram's last bar, `YYYY-MM-DD`. */
  today: string;
  /** The server's time, ms since the epoch: what the list of events' "3 minutes ago" counts from. */
  now: number;
  /** Undefined when none of the issue's events is stored (it has counts only). */
  event?: ShownEvent | UnshownEvent;
  /** A page of its stored events, newest first. */
  events: EventPage;
  /** Where that page starts (`?before=`), unset on the first. */
  eventsBefore?: string;
  /** Its alerts, newest first, one entry per channel. */
  alerts: AlertHistoryEntry[];
}

export const getInboxIssue = createServerFn({ method: 'GET' })
  .validator(IssueInput)
  .handler(async ({ data }): Promise<InboxIssue | FailingInbox> => {
    const { inbox, signedIn } = inboxOrNotFound();
    const problem = inbox.problem();
    if (problem) return wellFormed({ kind: 'failing', problem, inboxDir: inbox.dir, signedIn });
    const db = inbox.db();
    const now = Date.now();
    const issue = db.issue(data.issueId, now);
    if (!issue) throw notFound();
    const stored = db.event(data.issueId, data.eventId);
    // A named event that is not this issue's (or no longer stored) is the URL's fault.
    if (data.eventId !== undefined && !stored) throw notFound();
    const events = db.issueEvents(data.issueId, {
      ...(data.before === undefined ? {} : { before: data.before }),
      limit: ISSUE_EVENTS_PAGE_SIZE,
    });
    if (!events) throw notFound();
    const today = new Date(now).toISOString().slice(0, 10);
    const alerts = db.alerts.history(data.issueId, ALERT_HISTORY_SHOWN);
    const page: InboxIssue = { kind: 'ready', signedIn, issue, today, now, events, alerts };
    if (data.before !== undefined) page.eventsBefore = data.before;
    if (stored) {
      const latest = stored.newerId === undefined;
      page.event = await shownEvent(stored, latest);
    }
    return wellFormed(page);
  });

async function shownEvent(
  stored: NonNullable<ReturnType<InboxDatabase['event']>>,
  latest: boolean,
): Promise<ShownEvent | UnshownEvent> {
  let detail: EventDetail;
  let event: Record<string, unknown>;
  try {
    const parsed = storedEventOf(stored.payload);
    if (!parsed) throw new Error('the payload is not a JSON object');
    event = parsed;
    detail = eventDetailOf(event, stored.eventId);
  } catch (error) {
    // Logged, not stored in the inbox: a failure stored there would be one more event each
    // time the page is viewed.
    warnLimited(
      'inbox event unshown',
      `[inbox] event ${stored.eventId} could not be shown: ${(error as Error).message}`,
    );
    return { eventId: stored.eventId, unshown: true };
  }
  const { exceptions, ...facts } = detail;
  const shown: ShownEvent = {
    ...facts,
    // Resolved now, as the page is read; never throws (event-stack.server.ts).
    stack: await stackForDetail(stored.eventId, exceptions, event),
    receivedAt: stored.receivedAt,
    latest,
  };
  if (stored.newerId) shown.newerId = stored.newerId;
  if (stored.olderId) shown.olderId = stored.olderId;
  return shown;
}

/** Where an event is: its issue, for `/errors/<event id>` to redirect to (404 when none). */
export const getInboxEvent = createServerFn({ method: 'GET' })
  .validator(InboxEventInput)
  .handler(async ({ data }): Promise<{ issueId: number; eventId: string }> => {
    const { inbox } = inboxOrNotFound();
    const eventId = normaliseEventId(data.eventId);
    // A store that cannot be used: its issue page says why.
    if (inbox.problem()) throw notFound();
    const issueId = eventId === undefined ? undefined : inbox.db().issueOfEvent(eventId);
    if (issueId === undefined || eventId === undefined) throw notFound();
    return { issueId, eventId };
  });

/**
 * Triage (./triage.ts): resolve, resolve in the next release, ignore (forever or with a
 * mute), reopen or delete, for one issue from its page or for many from the list (those ticked,
 * or all that the list's search matches, the search run again here). A plain HTML form's POST
 * (works before hydration and without JavaScript) under the clear form's rules, answered with a
 * 303 back to the issue's page, or to the list with what was done. Deletes run on the ingest
 * thread in batches, as the clear does: the answer waits a moment for them, never blocking.
 */
export const triageIssues = createServerFn({ method: 'POST' })
  .validator((input: unknown) => v.parse(TriageInput, triageFieldsOf(input)))
  .handler(async ({ data }): Promise<never> => {
    const { inbox } = inboxOrNotFound();
    const refusal = formPostRefusalOf(getWebRequest(), 'changes issues');
    if (refusal) throw refusalResponse(refusal);
    const problem = inbox.problem();
    if (problem) throw new Response(`The inbox cannot be changed: ${problem}`, { status: 503 });
    const action = TRIAGE_ACTIONS[data.action];
    if (action.kind === 'delete' && data.confirm !== 'delete') {
      throw badRequest('Deleting cannot be undone: tick the box that confirms it.');
    }
    const target = triageTargetOf(data);
    const db = inbox.db();
    const { changed, problems } = db.triage(target, action, Date.now());
    if (problems.length > 0) throw badRequest(`Cannot search: ${problems.join('; ')}.`);
    if (data.from === 'issue' && changed === 0) {
      throw new Response('There is no such issue.', { status: 404 });
    }
    // The deleted issues are gone from every page already (marked in `triage`); their events go
    // in batches on the ingest thread, which the answer does not wait for.
    if (action.kind === 'delete' && changed > 0) void inbox.ingestThread().upkeep();
    throw seeOther(triageAnswerLocation(data, changed));
  });

/** The issues a triage form names: those ticked, or all that its search matches. */
function triageTargetOf(data: TriageFields): TriageTarget {
  if (data.scope === 'selected') {
    if (data.issueId.length === 0) {
      throw badRequest('Tick at least one issue, or choose all that match the search.');
    }
    return { kind: 'ids', ids: data.issueId };
  }
  const filters = issueListFiltersOf({
    ...(data.q === undefined ? {} : { q: data.q }),
    ...(data.status === undefined ? {} : { status: data.status }),
    ...(data.environment === undefined ? {} : { environment: data.environment }),
    ...(data.release === undefined ? {} : { release: data.release }),
  });
  if (!filters) throw badRequest('The search is not one the list offers.');
  const { page: _, sort: __, ...query } = filters;
  return { kind: 'matching', query: { ...query, now: Date.now() } };
}

/**
 * Back to the issue (and the event on view), or to the list's first page with its filters (the
 * page it was on may be gone), saying what was done.
 */
function triageAnswerLocation(data: TriageFields, changed: number): string {
  const [issueId] = data.issueId;
  if (data.from === 'issue' && data.action !== 'delete' && issueId !== undefined) {
    return `/errors/issues/${issueId}${data.event ? `?event=${data.event}` : ''}`;
  }
  const back = new URLSearchParams();
  for (const key of ['q', 'status', 'environment', 'release', 'sort'] as const) {
    const value = data[key];
    if (value !== undefined) back.set(key, value);
  }
  back.set('did', data.action);
  back.set('changed', String(changed));
  return `/errors?${back}`;
}

function badRequest(reason: string): Response {
  return new Response(reason, {
    status: 400,
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  });
}

/** An issue's latest alerts its page lists (each channel's delivery is one). */
const ALERT_HISTORY_SHOWN = 20;

/**
 * "Send a test alert": a plain form POST under the clear form's rules. The alert goes into the
 * outbox like any other (one delivery per channel, sent by the ingest thread's sender), so it
 * proves the whole path; the answer is a 303 back to the list, which shows each channel's
 * latest attempt.
 */
export const sendTestAlert = createServerFn({ method: 'POST' })
  .validator((input: unknown) =>
    v.parse(SendTestAlertInput, input instanceof FormData ? Object.fromEntries(input) : input),
  )
  .handler(async (): Promise<never> => {
    const { inbox } = inboxOrNotFound();
    const refusal = formPostRefusalOf(getWebRequest(), 'sends a test alert');
    if (refusal) throw refusalResponse(refusal);
    const problem = inbox.problem();
    if (problem) throw new Response(`The inbox cannot be changed: ${problem}`, { status: 503 });
    if (!inbox.db().alerts.raiseTest(Date.now())) {
      throw new Response(
        'No alert channel is configured (MONITORING_ALERT_WEBHOOK_URL or MONITORING_SMTP_URL).',
        {
          status: 409,
        },
      );
    }
    throw new Response(null, { status: 303, headers: { Location: '/errors' } });
  });

/** How long the clear form's answer waits for the clear: a small inbox is empty by then. */
const CLEAR_WAIT_MS = 1_000;

/**
 * Posted by a plain HTML form (works before hydration and without JavaScript), so it
 * answers with a redirect back to the list, as a form post expects. The answer is thrown:
 * Start 1.120's server-function handler sends a thrown Response as it is, while a returned
 * one does not fit the serialisable return type.
 *
 * The clear itself runs on the ingest thread in batches (decision 1001): this thread only notes
 * the request and waits a moment, without blocking, for it to finish; a large inbox goes on
 * being cleared after the answer, its progress on the list.
 */
export const clearInbox = createServerFn({ method: 'POST' })
  .validator((input: unknown) =>
    v.parse(ClearInboxInput, input instanceof FormData ? Object.fromEntries(input) : input),
  )
  .handler(async (): Promise<never> => {
    const { inbox } = inboxOrNotFound();
    const refusal = formPostRefusalOf(getWebRequest(), 'clears the inbox');
    if (refusal) throw refusalResponse(refusal);
    const problem = inbox.problem();
    if (problem) throw new Response(`The inbox cannot be changed: ${problem}`, { status: 503 });
    const db = inbox.db();
    db.requestClear(Date.now());
    await settledWithin(inbox.ingestThread().upkeep(), CLEAR_WAIT_MS);
    const progress = db.clearProgress();
    const location = progress?.done ? `/errors?cleared=${progress.deleted}` : '/errors';
    throw new Response(null, { status: 303, headers: { Location: location } });
  });

// Signing in to and out of the local inbox (decision 0306). Plain HTML forms post here, so
// they work before hydration and without JavaScript; the answers are redirects, thrown as a
// Response (see `clearInbox`, above, for why thrown).

/** What the sign-in page shows: the form, or that the inbox is already open to this request. */
export const getInboxAccess = createServerFn({ method: 'GET' }).handler(
  (): InboxAccessDecision => currentInboxAccess(),
);

export const SignInInput = v.object({ token: v.pipe(v.string(), v.maxLength(1000)) });

export const signInToInbox = createServerFn({ method: 'POST' })
  .validator((input: unknown) =>
    v.parse(SignInInput, input instanceof FormData ? Object.fromEntries(input) : input),
  )
  .handler(async ({ data }): Promise<never> => {
    // Before the token is even looked at: a GET would carry it in the URL, into access logs.
    const refusal = formPostRefusalOf(getWebRequest(), 'signs in');
    if (refusal) throw refusalResponse(refusal);
    const { inboxAccess, publicUrl } = serverConfig();
    if (inboxAccess.kind !== 'token') throw seeOther('/errors');

    const attempt = attemptInboxToken(currentClient(), data.token, inboxAccess.token);
    if (attempt.outcome === 'locked-out') {
      throw new Response(
        `Too many wrong tokens from your address: try again in ${minutes(attempt.retryAfterSeconds)}.`,
        {
          status: 429,
          headers: {
            'Retry-After': String(attempt.retryAfterSeconds),
            'Content-Type': 'text/plain; charset=utf-8',
          },
        },
      );
    }
    if (attempt.outcome === 'wrong') throw seeOther('/errors/sign-in?failed=1');
    const sessions = inboxSessions();
    // No inbox (Sentry mode) or no usable store: /errors has nothing to show either.
    if (!sessions) throw seeOther('/errors');
    setCookie(INBOX_SESSION_COOKIE, sessions.create(), {
      ...sessionCookieOptions(publicUrl?.protocol === 'https:'),
      // The browser keeps it as long as the server would.
      maxAge: SESSION_MAX_AGE_MS / 1000,
    });
    throw seeOther('/errors');
  });

/** Ends this browser's session, on the server and in its cookie. */
export const signOutOfInbox = createServerFn({ method: 'POST' }).handler(
  async (): Promise<never> => {
    const refusal = formPostRefusalOf(getWebRequest(), 'signs out');
    if (refusal) throw refusalResponse(refusal);
    const session = currentSessionId();
    if (session !== undefined) inboxSessions()?.end(session);
    const secure = serverConfig().publicUrl?.protocol === 'https:';
    deleteCookie(INBOX_SESSION_COOKIE, sessionCookieOptions(secure));
    throw seeOther('/errors/sign-in');
  },
);

/** A Set-Cookie written with h3's setCookie goes out with it (h3's sendWebResponse appends). */
function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location } });
}

function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return Promise.race([promise.then(() => undefined), timeout]).finally(() => clearTimeout(timer));
}

function minutes(seconds: number): string {
  const count = Math.ceil(seconds / 60);
  return count === 1 ? 'a minute' : `${count} minutes`;
}
