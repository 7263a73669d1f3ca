/**
 * The reads the /errors pages (and the read API) make of the inbox database: the list of issues
 * with its search and filters, an issue with its charts, tags and events, the facets, release
 * health and the totals. The writes are ./inbox-database.server.ts's, which opens the file and
 * hands these reads the same connection; WAL mode lets the pages read while the ingest thread
 * writes. Every statement is an indexed lookup or a bounded scan.
 */
import type Database from 'better-sqlite3';
import { ISSUE_ORDER } from '../inbox-inputs';
import { MAX_KNOWN_TAG_KEYS, parseIssueSearch, searchSqlOf, statusSql } from '../issue-search';
import { type Mute, statusNow, type TriageState } from '../triage';

export type IssueStatus = 'unresolved' | 'resolved' | 'ignored';

export interface IssueSummary {
  id: number;
  title: string;
  culprit: string;
  level: string;
  /** As the pages show it now: an ignored issue whose time mute passed is unresolved. */
  status: IssueStatus;
  /** What triage set: the mute, or the release it was resolved after (../triage.ts). */
  triage: TriageState;
  regressed: boolean;
  firstSeen: number;
  lastSeen: number;
  count: number;
  /** Events per hour, oldest first, for the last 24 hours up to `now`. */
  hourly: number[];
  environments: string[];
  lastRelease: string;
  /** Distinct users its events named, up to MAX_USERS_PER_ISSUE. */
  users: number;
  /** More users than MAX_USERS_PER_ISSUE came: `users` is a floor. */
  usersPastCap: boolean;
}

export type IssueSort = 'last-seen' | 'first-seen' | 'count';

export interface IssueQuery {
  /** Undefined: unresolved and resolved (ignored are hidden by default). */
  status?: IssueStatus | 'all';
  environment?: string;
  release?: string;
  /** Sentry's issue search syntax (../issue-search.ts). */
  search?: string;
  sort: IssueSort;
  page: number;
  pageSize: number;
  now: number;
  /**
   * Keyset paging (the read API's cursor): the page's issues are those after the one with these
   * values of ISSUE_ORDER[sort], in that order, `page` counted from there; `total` counts all.
   */
  after?: readonly number[];
}

export interface IssueList {
  issues: IssueSummary[];
  /** Issues that match. */
  total: number;
  /** Their events, counted. */
  events: number;
  /** What in the search cannot be searched ("unknown search key lvl"); nothing is listed then. */
  problems: string[];
  page: number;
  pageCount: number;
  /** Ignored issues the default filter hides, still counted. */
  hiddenIgnored: number;
}

export interface IssueDetail extends IssueSummary {
  firstRelease: string;
  /** Events per day, oldest first, for the last 30 days. */
  daily: number[];
  /** Tag keys, each with its values' shares, most frequent first. */
  tags: Array<{ key: string; total: number; values: Array<{ value: string; count: number }> }>;
  releases: string[];
  storedEvents: number;
}

export interface StoredEvent {
  eventId: string;
  issueId: number;
  receivedAt: number;
  payload: string;
  /** Neighbours among the issue's stored events, by time. */
  newerId?: string;
  olderId?: string;
}

/** One of an issue's stored events, as its list of events shows it (no payload). */
export interface ListedEvent {
  eventId: string;
  /** When the inbox received it, ms since the epoch: the list's order. */
  receivedAt: number;
  environment: string;
  release: string;
  url: string;
}

/** A page of an issue's stored events, newest first. */
export interface EventPage {
  events: ListedEvent[];
  /** Set when older events follow: the next page starts after this event. */
  nextBefore?: string;
}

export interface ClearProgress {
  /** Issues the clear deletes: those there were when it was asked for. */
  total: number;
  deleted: number;
  done: boolean;
}

export interface InboxReads {
  listIssues(query: IssueQuery): IssueList;
  issue(id: number, now: number): IssueDetail | undefined;
  /** An issue's event: the latest, or the one named. */
  event(issueId: number, eventId?: string): StoredEvent | undefined;
  /**
   * A page of an issue's stored events, newest first, after the event `before` names (keyset
   * paging through the events' issue index); undefined when `before` is not one of its events.
   */
  issueEvents(issueId: number, page: { before?: string; limit: number }): EventPage | undefined;
  /** The issue a stored event belongs to (for /errors/<event id>). */
  issueOfEvent(eventId: string): number | undefined;
  /** Each issue's latest stored event id, without payloads (for the list's top frames). */
  latestEventIds(issueIds: readonly number[]): Map<number, string>;
  /** The ids of the issues a list query matches now, or why its search cannot run. */
  matchingIssueIds(query: MatchQuery): { ids: number[]; problems: string[] };
  /** Deleted issues are waiting for the ingest thread's `deleteStep`. */
  deletesPending(): boolean;
  /** Environments and releases seen, for the filters. */
  facets(): { environments: string[]; releases: string[] };
  releaseHealth(): ReleaseHealth[];
  itemCounts(): Record<string, number>;
  totals(): { issues: number; events: number; storedEvents: number };
  /** The clear under way (or the last one, `done`), for the page. */
  clearProgress(): ClearProgress | undefined;
}

/** A list query without its order and paging: what the bulk actions' "all matching" take. */
export type MatchQuery = Omit<IssueQuery, 'sort' | 'page' | 'pageSize' | 'after'>;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Rows of release health the list shows, the most sessions first. */
const MAX_HEALTH_SHOWN = 50;
/** Values the environment and release filters offer, the most events first. */
const MAX_FACET_VALUES = 200;
/** Item-type rows the page reads at most (Relay's types and "other" are fewer). */
const MAX_ITEM_TYPES = 64;
/** Events an issue's list of events shows at most on a page. */
export const MAX_EVENTS_PAGE = 100;

// What an issue keeps, per issue, so that invented values cannot swell it (issue 32): the
// ingest's writes hold it to these, and the pages read no more than they allow.
/** Releases and environments kept per issue; past it, new ones count as "(other)". */
export const MAX_RELEASES_PER_ISSUE = 100;
export const MAX_ENVIRONMENTS_PER_ISSUE = 20;
/** Tag values kept per key and issue; the rest are summed under "(other)". */
export const MAX_TAG_VALUES = 100;
/** Tag keys kept per issue (the breakdown's own five and the event's tags); later keys are not kept. */
export const MAX_TAG_KEYS = 30;

/** The clear job's one row (migration 7): the writes start and step it, the page reads it. */
export const CLEAR_JOB_SQL =
  'SELECT up_to, total, deleted, requested_at, finished_at FROM inbox_clear WHERE id = 1';

/** The reads, on a connection the database module has opened (and migrated). */
export function inboxReads(db: Database.Database): InboxReads {
  const statements = prepareReads(db);
  return {
    listIssues: (query) => listIssues(db, statements, query),
    issue(id, now) {
      const row = statements.issueById.get(id) as IssueRow | undefined;
      if (!row || row.deleted_at !== null) return undefined;
      const summary = summaryOf(row, statements, now);
      const dayFrom = Math.floor(now / DAY_MS) - 29;
      const daily = Array<number>(30).fill(0);
      for (const { hour, count } of statements.hoursSince.all(id, dayFrom * 24) as Array<{
        hour: number;
        count: number;
      }>) {
        const day = Math.floor(hour / 24) - dayFrom;
        if (day >= 0 && day < 30) daily[day] = (daily[day] ?? 0) + count;
      }
      const tagRows = statements.tagsOf.all(id) as Array<{
        key: string;
        value: string;
        count: number;
      }>;
      const byKey = new Map<string, Array<{ value: string; count: number }>>();
      for (const { key, value, count } of tagRows) {
        const values = byKey.get(key) ?? [];
        values.push({ value, count });
        byKey.set(key, values);
      }
      const tags = [...byKey]
        .map(([key, values]) => ({
          key,
          total: values.reduce((sum, value) => sum + value.count, 0),
          values: values.sort((a, b) => b.count - a.count || a.value.localeCompare(b.value)),
        }))
        .sort((a, b) => a.key.localeCompare(b.key));
      const releases = (statements.releasesOf.all(id) as Array<{ release: string }>).map(
        (r) => r.release,
      );
      const { n } = statements.storedEventsOf.get(id) as { n: number };
      return {
        ...summary,
        firstRelease: row.first_release,
        daily,
        tags,
        releases,
        storedEvents: n,
      };
    },
    event(issueId, eventId) {
      const row = (
        eventId === undefined
          ? statements.latestEvent.get(issueId)
          : statements.eventById.get(eventId, issueId)
      ) as EventRow | undefined;
      if (!row) return undefined;
      const position = { issue: issueId, at: row.received_at, id: row.id };
      const newer = statements.newerEvent.get(position) as { event_id: string } | undefined;
      const older = statements.olderEvent.get(position) as { event_id: string } | undefined;
      return {
        eventId: row.event_id,
        issueId: row.issue_id,
        receivedAt: row.received_at,
        payload: row.payload,
        ...(newer ? { newerId: newer.event_id } : {}),
        ...(older ? { olderId: older.event_id } : {}),
      };
    },
    issueEvents(issueId, { before, limit }) {
      const size = Math.max(1, Math.min(MAX_EVENTS_PAGE, Math.floor(limit)));
      let rows: ListedEventRow[];
      if (before === undefined) {
        rows = statements.newestEvents.all({ issue: issueId, limit: size + 1 }) as ListedEventRow[];
      } else {
        const from = statements.eventById.get(before, issueId) as EventRow | undefined;
        if (!from) return undefined;
        rows = statements.eventsBefore.all({
          issue: issueId,
          at: from.received_at,
          id: from.id,
          limit: size + 1,
        }) as ListedEventRow[];
      }
      const events = rows.slice(0, size).map((row) => ({
        eventId: row.event_id,
        receivedAt: row.received_at,
        environment: row.environment,
        release: row.release,
        url: row.url,
      }));
      const last = events[events.length - 1];
      return rows.length > size && last ? { events, nextBefore: last.eventId } : { events };
    },
    issueOfEvent(eventId) {
      const row = statements.issueOfEvent.get(eventId) as { issue_id: number } | undefined;
      return row?.issue_id;
    },
    latestEventIds(issueIds) {
      const ids = new Map<number, string>();
      for (const issueId of issueIds) {
        const row = statements.latestEventId.get(issueId) as { event_id: string } | undefined;
        if (row) ids.set(issueId, row.event_id);
      }
      return ids;
    },
    matchingIssueIds(query) {
      const matched = matchingIssues(statements, query);
      if (matched.problems.length > 0) return { ids: [], problems: matched.problems };
      const rows = db
        .prepare(`SELECT id FROM issues ${matched.listed}`)
        .all(...matched.bound) as Array<{ id: number }>;
      return { ids: rows.map((row) => row.id), problems: [] };
    },
    deletesPending: () => statements.anyDeleted.get() !== undefined,
    facets() {
      return {
        environments: (statements.environments.all() as Array<{ v: string }>).map((r) => r.v),
        releases: (statements.releases.all() as Array<{ v: string }>).map((r) => r.v),
      };
    },
    releaseHealth() {
      return (statements.health.all() as SessionCounts[]).map(releaseHealthOf);
    },
    itemCounts() {
      const counts: Record<string, number> = Object.create(null);
      for (const row of statements.itemCounts.all() as Array<{ type: string; count: number }>) {
        counts[row.type] = row.count;
      }
      return counts;
    },
    totals() {
      return statements.totals.get() as { issues: number; events: number; storedEvents: number };
    },
    clearProgress() {
      const job = statements.clearJob.get() as ClearRow | undefined;
      if (!job) return undefined;
      return {
        total: Math.max(job.total, job.deleted),
        deleted: job.deleted,
        done: job.finished_at !== null,
      };
    },
  };
}

export interface ClearRow {
  up_to: number;
  total: number;
  deleted: number;
  requested_at: number;
  finished_at: number | null;
}

export interface IssueRow {
  id: number;
  title: string;
  culprit: string;
  level: string;
  status: IssueStatus;
  mute_kind: Mute['kind'] | null;
  mute_target: number | null;
  mute_count: number | null;
  resolved_after_release: string | null;
  resolved_at: number | null;
  deleted_at: number | null;
  regressed: number;
  first_seen: number;
  last_seen: number;
  event_count: number;
  first_release: string;
  last_release: string;
  user_count: number;
  users_past_cap: number;
}

/** The triage state a row holds (migration 9). */
export function triageStateOf(row: IssueRow): TriageState {
  switch (row.status) {
    case 'unresolved':
      return { status: 'unresolved' };
    case 'resolved':
      return row.resolved_after_release === null
        ? { status: 'resolved' }
        : {
            status: 'resolved',
            inNextRelease: { after: row.resolved_after_release, at: row.resolved_at ?? 0 },
          };
    case 'ignored': {
      if (row.mute_kind === null || row.mute_target === null) return { status: 'ignored' };
      const mute: Mute =
        row.mute_kind === 'time'
          ? { kind: 'time', target: row.mute_target }
          : { kind: row.mute_kind, target: row.mute_target, count: row.mute_count ?? 0 };
      return { status: 'ignored', mute };
    }
  }
}

interface ListedEventRow {
  event_id: string;
  received_at: number;
  environment: string;
  release: string;
  url: string;
}

interface EventRow {
  id: number;
  event_id: string;
  issue_id: number;
  received_at: number;
  payload: string;
}

type ReadStatements = ReturnType<typeof prepareReads>;

function prepareReads(db: Database.Database) {
  return {
    issueById: db.prepare('SELECT * FROM issues WHERE id = ?'),
    hoursSince: db.prepare(
      'SELECT hour, count FROM issue_hours WHERE issue_id = ? AND hour >= ? ORDER BY hour',
    ),
    environmentsOf: db.prepare(
      `SELECT environment FROM issue_environments WHERE issue_id = ? ORDER BY count DESC, environment
       LIMIT ${MAX_ENVIRONMENTS_PER_ISSUE + 1}`,
    ),
    tagKeyKnown: db.prepare('SELECT 1 FROM tag_keys WHERE key = ?'),
    tagKeyCount: db.prepare("SELECT n FROM row_counts WHERE name = 'tag_keys'").pluck(),
    tagsOf: db.prepare(
      `SELECT key, value, count FROM issue_tags WHERE issue_id = ? ORDER BY count DESC LIMIT ${MAX_TAG_KEYS * MAX_TAG_VALUES}`,
    ),
    releasesOf: db.prepare(
      `SELECT release FROM issue_releases WHERE issue_id = ? ORDER BY first_seen, release
       LIMIT ${MAX_RELEASES_PER_ISSUE + 1}`,
    ),
    storedEventsOf: db.prepare('SELECT count(*) AS n FROM events WHERE issue_id = ?'),
    latestEvent: db.prepare(
      'SELECT id, event_id, issue_id, received_at, payload FROM events WHERE issue_id = ? ORDER BY received_at DESC, id DESC LIMIT 1',
    ),
    eventById: db.prepare(
      'SELECT id, event_id, issue_id, received_at, payload FROM events WHERE event_id = ? AND issue_id = ?',
    ),
    latestEventId: db.prepare(
      'SELECT event_id FROM events WHERE issue_id = ? ORDER BY received_at DESC, id DESC LIMIT 1',
    ),
    issueOfEvent: db.prepare(
      `SELECT issue_id FROM events JOIN issues ON issues.id = events.issue_id
       WHERE event_id = ? AND deleted_at IS NULL`,
    ),
    anyDeleted: db.prepare('SELECT 1 FROM issues WHERE deleted_at IS NOT NULL LIMIT 1'),
    newestEvents: db.prepare(ISSUE_EVENTS_SQL.newest),
    eventsBefore: db.prepare(ISSUE_EVENTS_SQL.before),
    newerEvent: db.prepare(
      'SELECT event_id FROM events WHERE issue_id = @issue AND (received_at > @at OR (received_at = @at AND id > @id)) ORDER BY received_at, id LIMIT 1',
    ),
    olderEvent: db.prepare(
      'SELECT event_id FROM events WHERE issue_id = @issue AND (received_at < @at OR (received_at = @at AND id < @id)) ORDER BY received_at DESC, id DESC LIMIT 1',
    ),
    // The filters offer the most common values: what a client sends cannot make the page huge.
    environments: db.prepare(
      `SELECT v FROM (SELECT environment AS v, sum(count) AS n FROM issue_environments
         GROUP BY environment ORDER BY n DESC LIMIT ${MAX_FACET_VALUES}) ORDER BY v`,
    ),
    releases: db.prepare(
      `SELECT v FROM (SELECT release AS v, sum(count) AS n FROM issue_releases
         GROUP BY release ORDER BY n DESC LIMIT ${MAX_FACET_VALUES}) ORDER BY v`,
    ),
    health: db.prepare(
      `SELECT release, environment, sessions, errored, unhandled, crashed, abnormal
         FROM release_health ORDER BY sessions DESC, release DESC, environment LIMIT ${MAX_HEALTH_SHOWN}`,
    ),
    itemCounts: db.prepare(
      `SELECT type, count FROM (SELECT type, count FROM item_counts ORDER BY count DESC
         LIMIT ${MAX_ITEM_TYPES}) ORDER BY type`,
    ),
    clearJob: db.prepare(CLEAR_JOB_SQL),
    totals: db.prepare(
      `SELECT (SELECT count(*) FROM issues)
                - (SELECT count(*) FROM issues WHERE deleted_at IS NOT NULL) AS issues,
              (SELECT coalesce(sum(event_count), 0) FROM issues WHERE deleted_at IS NULL) AS events,
              (SELECT n FROM row_counts WHERE name = 'events') AS storedEvents`,
    ),
  };
}

/**
 * An issue's list of events, newest first, read from its end of the events' issue index
 * (`events_issue`): a page costs its own rows, however many events the issue has. The unit test
 * reads their query plans.
 */
export const ISSUE_EVENTS_SQL = {
  newest: `SELECT event_id, received_at, environment, release, url FROM events
    WHERE issue_id = @issue ORDER BY received_at DESC, id DESC LIMIT @limit`,
  before: `SELECT event_id, received_at, environment, release, url FROM events
    WHERE issue_id = @issue AND (received_at, id) < (@at, @id)
    ORDER BY received_at DESC, id DESC LIMIT @limit`,
} as const;

/** ISSUE_ORDER's fields as the columns the issues' sort indexes hold (migration 1). */
const ORDER_COLUMNS = {
  lastSeen: 'last_seen',
  firstSeen: 'first_seen',
  count: 'event_count',
  id: 'id',
};

const SORT_SQL = sortSqlOf((column) => `${column} DESC`);
const SORT_KEY_SQL = sortSqlOf((column) => column);

function sortSqlOf(each: (column: string) => string): Record<IssueSort, string> {
  const sql = (sort: IssueSort) =>
    ISSUE_ORDER[sort].map((field) => each(ORDER_COLUMNS[field])).join(', ');
  return { 'last-seen': sql('last-seen'), 'first-seen': sql('first-seen'), count: sql('count') };
}

/**
 * The issues after the one whose ISSUE_ORDER[sort] values are `after`: row values compared in
 * the sort's order (all descending, so "after" is "less than"), read from its index.
 */
function afterSqlOf(sort: IssueSort, after: readonly number[]) {
  const params = Object.fromEntries(after.map((value, i) => [`after${i}`, value]));
  const values = Object.keys(params).map((name) => `@${name}`);
  return { sql: `(${SORT_KEY_SQL[sort]}) < (${values.join(', ')})`, params };
}

/**
 * What a list query matches, as SQL over `issues`: the search, the filters, never an issue being
 * deleted, and ignored issues hidden unless a status is asked for (by the filter or by `is:`).
 * The list and the bulk actions' "all matching" read the same.
 */
function matchingIssues(statements: ReadStatements, query: MatchQuery) {
  const search = parseIssueSearch(query.search ?? '');
  const searched = searchSqlOf(search.terms, query.now);
  const problems = [...search.problems, ...unknownTagKeys(statements, searched.tagKeys)];
  const where: string[] = [...searched.where, 'deleted_at IS NULL'];
  const params: Record<string, unknown> = { ...searched.params };
  const bindNow = () => {
    params.now = query.now;
    return '@now';
  };
  if (query.status !== undefined && query.status !== 'all') {
    where.push(statusSql(query.status, bindNow));
  }
  if (query.environment !== undefined) {
    where.push('id IN (SELECT issue_id FROM issue_environments WHERE environment = @environment)');
    params.environment = query.environment;
  }
  if (query.release !== undefined) {
    where.push('id IN (SELECT issue_id FROM issue_releases WHERE release = @release)');
    params.release = query.release;
  }
  const hidesIgnored = query.status === undefined && !searched.namesStatus;
  const ignored = statusSql('ignored', bindNow);
  const whereSql = (extra?: string) =>
    `WHERE ${[...where, ...(extra ? [extra] : [])].join(' AND ')}`;
  const listed = whereSql(hidesIgnored ? `NOT ${ignored}` : undefined);
  const hiddenIgnored = hidesIgnored ? whereSql(ignored) : undefined;
  // better-sqlite3 refuses named values a statement does not use: none when nothing filters
  // (every statement holds all of `where`, and each holds the ignored test when one does).
  const bound = Object.keys(params).length > 0 ? [params] : [];
  return { problems, params, bound, listed, hiddenIgnored };
}

function listIssues(
  db: Database.Database,
  statements: ReadStatements,
  query: IssueQuery,
): IssueList {
  const {
    problems,
    params,
    bound,
    listed,
    hiddenIgnored: ignoredSql,
  } = matchingIssues(statements, query);
  if (problems.length > 0) {
    return { issues: [], total: 0, events: 0, problems, page: 1, pageCount: 1, hiddenIgnored: 0 };
  }
  const counted = `SELECT count(*) AS n, coalesce(sum(event_count), 0) AS events FROM issues ${listed}`;
  const { n: total, events } = db.prepare(counted).get(...bound) as {
    n: number;
    events: number;
  };
  const pageCount = Math.max(1, Math.ceil(total / query.pageSize));
  const page = Math.min(Math.max(1, query.page), pageCount);
  // A cursor narrows the page's rows only: `total` still counts every issue that matches.
  const after = query.after === undefined ? undefined : afterSqlOf(query.sort, query.after);
  const paged = after ? `${listed} AND ${after.sql}` : listed;
  // Nothing found: a search with no match (a typo'd tag value) need not walk the issues again.
  const rows =
    total === 0
      ? []
      : (db
          .prepare(
            `SELECT * FROM issues ${paged} ORDER BY ${SORT_SQL[query.sort]} LIMIT @limit OFFSET @offset`,
          )
          .all({
            ...params,
            ...after?.params,
            limit: query.pageSize,
            offset: (page - 1) * query.pageSize,
          }) as IssueRow[]);
  const { n: hiddenIgnored } = ignoredSql
    ? (db.prepare(`SELECT count(*) AS n FROM issues ${ignoredSql}`).get(...bound) as { n: number })
    : { n: 0 };
  return {
    issues: rows.map((row) => summaryOf(row, statements, query.now)),
    total,
    events,
    problems: [],
    page,
    pageCount,
    hiddenIgnored,
  };
}

/**
 * The searched tag keys no event has had ("unknown search key lvl"): a typo finds nothing, and
 * says so. Once the store knows MAX_KNOWN_TAG_KEYS keys, any key is taken.
 */
function unknownTagKeys(statements: ReadStatements, keys: readonly string[]): string[] {
  if (keys.length === 0 || (statements.tagKeyCount.get() as number) >= MAX_KNOWN_TAG_KEYS) {
    return [];
  }
  return [...new Set(keys)]
    .filter((key) => statements.tagKeyKnown.get(key) === undefined)
    .map((key) => `unknown search key ${key}`);
}

function summaryOf(row: IssueRow, statements: ReadStatements, now: number): IssueSummary {
  const lastHour = Math.floor(now / HOUR_MS);
  const hourly = Array<number>(24).fill(0);
  for (const { hour, count } of statements.hoursSince.all(row.id, lastHour - 23) as Array<{
    hour: number;
    count: number;
  }>) {
    const slot = hour - (lastHour - 23);
    if (slot >= 0 && slot < 24) hourly[slot] = count;
  }
  const triage = triageStateOf(row);
  return {
    id: row.id,
    title: row.title,
    culprit: row.culprit,
    level: row.level,
    status: statusNow(triage, now),
    triage,
    regressed: row.regressed === 1,
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    count: row.event_count,
    hourly,
    environments: (statements.environmentsOf.all(row.id) as Array<{ environment: string }>).map(
      (r) => r.environment,
    ),
    lastRelease: row.last_release,
    users: row.user_count,
    usersPastCap: row.users_past_cap === 1,
  };
}

// Release health as Sentry shows it, from the session counts the inbox keeps (pure, so the
// counting policy is a table test: tests/unit/server/inbox/store/release-health.test.ts).
//
// What is counted (Relay's session metrics, relay-server/src/metrics_extraction/sessions/mod.rs,
// with `SessionLike` in relay-event-schema/src/protocol/session.rs): a session is started once
// (`init`); it is errored when an update has `errors > 0` or any status but `ok` and `exited`
// (`SessionStatus::is_error`), which includes `unhandled`, `crashed` and `abnormal`; each of
// those three is counted on its own too (`unhandled` since Relay 4939: an error nobody handled
// that did not end the process, what the browser SDK sends). An aggregate's `errored`,
// `unhandled`, `crashed` and `abnormal` are disjoint, and its sessions are their sum with
// `exited`.
//
// What is shown (Sentry's sessions API and release page: `SumSessionField` and the
// `useCrashFreeSessions` chart): five disjoint parts of the sessions, healthy, errored (handled
// errors only), unhandled, crashed and abnormal; the crash-free rate is 1 − crashed / sessions,
// so an `unhandled` session is not a crash (it shows in its own part and rate).

/** The counts kept per release and environment; each outcome counted once per session. */
export interface SessionCounts {
  release: string;
  environment: string;
  /** Sessions started (`init`). */
  sessions: number;
  /** Sessions that saw any error, unhandled, crashed and abnormal ones included. */
  errored: number;
  unhandled: number;
  crashed: number;
  abnormal: number;
}

/** One release's health: `sessions` is the sum of the five parts. */
export interface ReleaseHealth {
  release: string;
  environment: string;
  sessions: number;
  healthy: number;
  /** Sessions whose errors were all handled. */
  errored: number;
  unhandled: number;
  crashed: number;
  abnormal: number;
  /** 1 − crashed / sessions, 0..1, Sentry's crash-free rate; undefined without sessions. */
  crashFreeRate?: number;
  /** unhandled / sessions, 0..1; undefined without sessions. */
  unhandledRate?: number;
}

/**
 * The parts from the counts. An outcome can arrive for a session whose start was not counted
 * (it started before the inbox was cleared, or its first update was dropped): the parts are
 * taken worst first, crashed, abnormal, unhandled, errored, and none past the sessions started,
 * so that they always add up to the total shown and the rates come from the same figures.
 */
export function releaseHealthOf(counts: SessionCounts): ReleaseHealth {
  const sessions = Math.max(0, counts.sessions);
  let left = sessions;
  const take = (count: number) => {
    const taken = Math.min(Math.max(0, count), left);
    left -= taken;
    return taken;
  };
  const crashed = take(counts.crashed);
  const abnormal = take(counts.abnormal);
  const unhandled = take(counts.unhandled);
  const errored = take(counts.errored - counts.crashed - counts.abnormal - counts.unhandled);
  const health: ReleaseHealth = {
    release: counts.release,
    environment: counts.environment,
    sessions,
    healthy: left,
    errored,
    unhandled,
    crashed,
    abnormal,
  };
  if (sessions > 0) {
    health.crashFreeRate = 1 - crashed / sessions;
    health.unhandledRate = unhandled / sessions;
  }
  return health;
}
