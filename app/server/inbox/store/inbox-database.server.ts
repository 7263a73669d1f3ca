/**
 * The local inbox on SQLite (better-sqlite3, decision 0310): issues grouped as Sentry groups
 * them, their events, and the counts that outlive the events. One file,
 * `<MONITORING_INBOX_DIR>/inbox.sqlite`, in WAL mode, so the writer (the ingest thread) and the
 * readers (the pages, on the main thread) never wait for each other, and two server processes
 * on one inbox are safe (SQLite's own locking, with a busy timeout).
 *
 * Synchronous on purpose: better-sqlite3 is, and every statement here is an indexed lookup or
 * a bounded scan. Writes run in the ingest thread (./ingest-thread.server.ts), reads on the main
 * thread; tests use this module directly.
 *
 * What is kept (docs/local-inbox.md):
 * - every issue's counts, first and last seen, hourly counts, environments, releases and tag
 *   values, until the inbox is cleared;
 * - raw events up to `maxEvents` in all; past it the oldest go, except each issue's first and
 *   latest, so a flood of one error never evicts a rare one;
 * - release health as counts per release and environment; spans, client reports and other
 *   items as counts only. No item that is not an error is ever stored as one.
 */
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations';

export type IssueStatus = 'unresolved' | 'resolved' | 'ignored';

/** One error event, prepared for storage (validated, normalised and grouped off this thread). */
export interface PreparedEvent {
  /** 32 lower-case hex characters. */
  eventId: string;
  /** When it happened, ms since the epoch. */
  timestamp: number;
  level: string;
  platform: string;
  environment: string;
  release: string;
  /** The page or request URL, for search. */
  url: string;
  title: string;
  culprit: string;
  /** Grouping hashes, strongest first (app, then system); an event joins the issue of any. */
  hashes: string[];
  groupingConfig: string;
  /** Tag pairs for the issue's breakdown (browser, os, url, release, environment, the event's own). */
  tags: Array<[string, string]>;
  /** The normalised event, as JSON. */
  payload: string;
}

/**
 * What one session update adds to release health, as Relay's session metrics count it
 * (../classify-envelope.ts): sessions started, and how many of them errored, crashed or ended
 * abnormally. With a `sessionId` each outcome counts once per session, however many updates
 * repeat it; an aggregate (no id) adds its counts as they are.
 */
export interface PreparedSession {
  release: string;
  environment: string;
  started: number;
  errored: number;
  crashed: number;
  abnormal: number;
  sessionId?: string;
}

export interface PreparedEnvelope {
  event?: PreparedEvent;
  sessions: PreparedSession[];
  /** Item counts by type (event, session, span, client_report, …). */
  counts: Record<string, number>;
}

export type IngestOutcome =
  | { kind: 'stored'; issueId: number; isNewIssue: boolean; regressed: boolean }
  | { kind: 'duplicate' }
  | { kind: 'counted' };

export interface IssueSummary {
  id: number;
  title: string;
  culprit: string;
  level: string;
  status: IssueStatus;
  regressed: boolean;
  firstSeen: number;
  lastSeen: number;
  count: number;
  /** Events per hour, oldest first, for the last 24 hours up to `now`. */
  hourly: number[];
  environments: string[];
  lastRelease: string;
}

export type IssueSort = 'last-seen' | 'first-seen' | 'count';

export interface IssueQuery {
  /** Undefined: unresolved and resolved (ignored are hidden by default). */
  status?: IssueStatus | 'all';
  environment?: string;
  release?: string;
  /** Matched against title, culprit and the URLs of the issue's events. */
  search?: string;
  sort: IssueSort;
  page: number;
  pageSize: number;
  now: number;
}

export interface IssueList {
  issues: IssueSummary[];
  total: number;
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

export interface ReleaseHealth {
  release: string;
  environment: string;
  sessions: number;
  crashed: number;
  errored: number;
  abnormal: number;
  /** Share of sessions that did not crash, 0..1, as Sentry's crash-free rate; undefined without sessions. */
  crashFreeRate?: number;
}

export interface InboxDatabase {
  /** Stores a batch in one transaction (one fsync); outcomes in the batch's order. */
  ingest(batch: readonly PreparedEnvelope[], receivedAt: number): IngestOutcome[];
  listIssues(query: IssueQuery): IssueList;
  issue(id: number, now: number): IssueDetail | undefined;
  /** An issue's event: the latest, or the one named. */
  event(issueId: number, eventId?: string): StoredEvent | undefined;
  /** The issue a stored event belongs to (for /errors/<event id>). */
  issueOfEvent(eventId: string): number | undefined;
  /** Each issue's latest stored event id, without payloads (for the list's top frames). */
  latestEventIds(issueIds: readonly number[]): Map<number, string>;
  setStatus(issueId: number, status: IssueStatus): boolean;
  /** Environments and releases seen, for the filters. */
  facets(): { environments: string[]; releases: string[] };
  releaseHealth(): ReleaseHealth[];
  itemCounts(): Record<string, number>;
  totals(): { issues: number; events: number; storedEvents: number };
  /** Deletes everything; says how many issues went. */
  clear(): number;
  close(): void;
}

export interface InboxDatabaseOptions {
  /** Raw events kept in all; counts are kept regardless. */
  maxEvents: number;
  readonly?: boolean;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Tag values kept per key and issue; the rest are summed under "other". */
const MAX_TAG_VALUES = 100;
/** Tag keys kept per issue (the breakdown's own five and the event's tags); later keys are not kept. */
const MAX_TAG_KEYS = 30;
/** Release and environment pairs in release health; past it, new pairs count as "(other)". */
const MAX_HEALTH_ROWS = 1_000;
/** Rows of release health the list shows, the most sessions first. */
const MAX_HEALTH_SHOWN = 50;
/** Values the environment and release filters offer, the most events first. */
const MAX_FACET_VALUES = 200;
const OTHER_TAG_VALUE = '(other)';

export function openInboxDatabase(path: string, options: InboxDatabaseOptions): InboxDatabase {
  const db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: false });
  try {
    // Another process (a replica, the other thread) may hold the write lock for a moment.
    db.pragma('busy_timeout = 5000');
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      // FULL: a commit is on disk before the tunnel answers 200, power loss included.
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      migrate(db);
    }
    return inboxDatabase(db, options);
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Versioned migrations in PRAGMA user_version, each in an IMMEDIATE transaction that reads the
 * version again inside it: the ingest thread, the pages and a second process may open the same
 * file at once, and exactly one of them applies each step.
 */
function migrate(db: Database.Database): void {
  const step = db.transaction((): boolean => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > MIGRATIONS.length) {
      throw new Error(
        `the inbox database is version ${current}, newer than this app knows (${MIGRATIONS.length}): it was written by a newer version`,
      );
    }
    if (current === MIGRATIONS.length) return false;
    db.exec(MIGRATIONS[current] as string);
    db.pragma(`user_version = ${current + 1}`);
    return true;
  });
  while (step.immediate()) {
    // One step per transaction, until the schema is current.
  }
}

function inboxDatabase(db: Database.Database, options: InboxDatabaseOptions): InboxDatabase {
  const statements = prepare(db, options.readonly ?? false);

  const ingestOne = (prepared: PreparedEnvelope, receivedAt: number): IngestOutcome => {
    const s = statements.write();
    for (const [type, count] of Object.entries(prepared.counts)) s.countItem.run(type, count);
    for (const session of prepared.sessions) recordSession(s, session, receivedAt);
    const event = prepared.event;
    if (!event) return { kind: 'counted' };
    if (s.eventExists.get(event.eventId)) return { kind: 'duplicate' };

    let issueId: number | undefined;
    for (const hash of event.hashes) {
      const row = s.issueOfHash.get(hash) as { issue_id: number } | undefined;
      if (row) {
        issueId = row.issue_id;
        break;
      }
    }
    let isNewIssue = false;
    let regressed = false;
    const seen = Math.min(event.timestamp, receivedAt);
    if (issueId === undefined) {
      isNewIssue = true;
      issueId = Number(
        s.insertIssue.run({
          title: event.title,
          culprit: event.culprit,
          level: event.level,
          platform: event.platform,
          seen,
          release: event.release,
          config: event.groupingConfig,
        }).lastInsertRowid,
      );
    } else {
      const before = s.issueStatus.get(issueId) as { status: IssueStatus };
      regressed = before.status === 'resolved';
      s.updateIssue.run({
        id: issueId,
        title: event.title,
        culprit: event.culprit,
        level: event.level,
        seen,
        release: event.release,
        regressed: regressed ? 1 : 0,
      });
    }
    // Every hash the event has now points at its issue: a later change of algorithm (a new
    // config's hashes) joins the issue instead of splitting it.
    for (const hash of event.hashes) s.insertHash.run(hash, issueId);
    s.countHour.run(issueId, Math.floor(event.timestamp / HOUR_MS));
    s.countEnvironment.run(issueId, event.environment);
    s.countRelease.run(issueId, event.release, seen, seen);
    for (const [key, value] of event.tags) {
      const counted = s.countTag.run({ issue: issueId, key, value });
      if (counted.changes === 0) s.countTag.run({ issue: issueId, key, value: OTHER_TAG_VALUE });
    }
    s.insertEvent.run({
      eventId: event.eventId,
      issueId,
      receivedAt,
      timestamp: event.timestamp,
      environment: event.environment,
      release: event.release,
      url: event.url,
      payload: event.payload,
    });
    return { kind: 'stored', issueId, isNewIssue, regressed };
  };

  const recordSession = (s: WriteStatements, given: PreparedSession, receivedAt: number) => {
    // Releases and environments come from the client: past MAX_HEALTH_ROWS pairs, new ones are
    // counted together, so a client inventing releases cannot grow the table or the page.
    const known = s.healthRowExists.get(given.release, given.environment) !== undefined;
    const full = !known && (s.healthRows.get() as { n: number }).n >= MAX_HEALTH_ROWS;
    const session = full
      ? { ...given, release: OTHER_TAG_VALUE, environment: OTHER_TAG_VALUE }
      : given;
    s.ensureHealth.run(session.release, session.environment);
    if (session.started > 0)
      s.addTo.sessions.run(session.started, session.release, session.environment);
    for (const outcome of ['errored', 'crashed', 'abnormal'] as const) {
      const count = session[outcome];
      if (count <= 0) continue;
      if (session.sessionId !== undefined) {
        const fresh = s.noteSessionOutcome.run(session.sessionId, outcome, receivedAt).changes > 0;
        if (!fresh) continue;
      }
      s.addTo[outcome].run(count, session.release, session.environment);
    }
  };

  /**
   * Raw events back under the cap, the least useful first: the oldest that are neither their
   * issue's first nor its latest; then, when every event left is one of those (more issues than
   * the cap), the oldest first events; then the oldest of all. Counts stay with every issue.
   */
  const evict = () => {
    const s = statements.write();
    for (const stage of [s.evictMiddle, s.evictFirsts, s.evictOldest]) {
      const { n } = s.countEvents.get() as { n: number };
      const excess = n - options.maxEvents;
      if (excess <= 0) return;
      stage.run(excess);
    }
  };

  const ingestBatch = db.transaction((batch: readonly PreparedEnvelope[], receivedAt: number) => {
    const outcomes = batch.map((prepared) => ingestOne(prepared, receivedAt));
    if (outcomes.some((outcome) => outcome.kind === 'stored')) evict();
    if (batch.some((prepared) => prepared.sessions.length > 0)) {
      statements.write().pruneSessionOutcomes.run(receivedAt - DAY_MS);
    }
    return outcomes;
  });

  return {
    // IMMEDIATE: the write lock at BEGIN. A deferred transaction reads first, and when another
    // worker's ingest thread commits in between, SQLite cannot wait for its upgrade to a
    // writer: it fails at once (SQLITE_BUSY_SNAPSHOT), whatever the busy timeout.
    ingest: (batch, receivedAt) => ingestBatch.immediate(batch, receivedAt),
    listIssues: (query) => listIssues(db, statements, query),
    issue(id, now) {
      const row = statements.issueById.get(id) as IssueRow | undefined;
      if (!row) return undefined;
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
    setStatus(issueId, status) {
      return statements.write().setStatus.run({ status, id: issueId }).changes > 0;
    },
    facets() {
      return {
        environments: (statements.environments.all() as Array<{ v: string }>).map((r) => r.v),
        releases: (statements.releases.all() as Array<{ v: string }>).map((r) => r.v),
      };
    },
    releaseHealth() {
      return (statements.health.all() as HealthRow[]).map((row) => ({
        release: row.release,
        environment: row.environment,
        sessions: row.sessions,
        crashed: row.crashed,
        errored: row.errored,
        abnormal: row.abnormal,
        ...(row.sessions > 0 ? { crashFreeRate: Math.max(0, 1 - row.crashed / row.sessions) } : {}),
      }));
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
    clear() {
      return db
        .transaction(() => {
          const { n } = db.prepare('SELECT count(*) AS n FROM issues').get() as { n: number };
          db.exec(CLEAR_SQL);
          return n;
        })
        .immediate();
    },
    close() {
      db.close();
    },
  };
}

const CLEAR_SQL = `
  DELETE FROM events; DELETE FROM issue_hashes; DELETE FROM issue_hours;
  DELETE FROM issue_environments; DELETE FROM issue_releases; DELETE FROM issue_tags;
  DELETE FROM issues; DELETE FROM release_health; DELETE FROM session_outcomes;
  DELETE FROM item_counts;`;

interface IssueRow {
  id: number;
  title: string;
  culprit: string;
  level: string;
  status: IssueStatus;
  regressed: number;
  first_seen: number;
  last_seen: number;
  event_count: number;
  first_release: string;
  last_release: string;
}

interface EventRow {
  id: number;
  event_id: string;
  issue_id: number;
  received_at: number;
  payload: string;
}

interface HealthRow {
  release: string;
  environment: string;
  sessions: number;
  crashed: number;
  errored: number;
  abnormal: number;
}

type Statements = ReturnType<typeof prepare>;
type WriteStatements = ReturnType<Statements['write']>;

function prepare(db: Database.Database, readonly: boolean) {
  let writes: ReturnType<typeof prepareWrites> | undefined;
  return {
    write() {
      if (readonly) throw new Error('the inbox database was opened read-only');
      writes ??= prepareWrites(db);
      return writes;
    },
    issueById: db.prepare('SELECT * FROM issues WHERE id = ?'),
    hoursSince: db.prepare(
      'SELECT hour, count FROM issue_hours WHERE issue_id = ? AND hour >= ? ORDER BY hour',
    ),
    environmentsOf: db.prepare(
      'SELECT environment FROM issue_environments WHERE issue_id = ? ORDER BY count DESC, environment',
    ),
    tagsOf: db.prepare(
      `SELECT key, value, count FROM issue_tags WHERE issue_id = ? ORDER BY count DESC LIMIT ${MAX_TAG_KEYS * MAX_TAG_VALUES}`,
    ),
    releasesOf: db.prepare(
      'SELECT release FROM issue_releases WHERE issue_id = ? ORDER BY first_seen, release',
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
    issueOfEvent: db.prepare('SELECT issue_id FROM events WHERE event_id = ?'),
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
      `SELECT * FROM release_health ORDER BY sessions DESC, release DESC, environment LIMIT ${MAX_HEALTH_SHOWN}`,
    ),
    itemCounts: db.prepare('SELECT type, count FROM item_counts ORDER BY type'),
    totals: db.prepare(
      `SELECT (SELECT count(*) FROM issues) AS issues,
              (SELECT coalesce(sum(event_count), 0) FROM issues) AS events,
              (SELECT count(*) FROM events) AS storedEvents`,
    ),
  };
}

function prepareWrites(db: Database.Database) {
  const outcome = (column: string) =>
    db.prepare(
      `UPDATE release_health SET ${column} = ${column} + ? WHERE release = ? AND environment = ?`,
    );
  return {
    countItem: db.prepare(
      'INSERT INTO item_counts (type, count) VALUES (?, ?) ON CONFLICT (type) DO UPDATE SET count = count + excluded.count',
    ),
    eventExists: db.prepare('SELECT 1 FROM events WHERE event_id = ?'),
    issueOfHash: db.prepare('SELECT issue_id FROM issue_hashes WHERE hash = ?'),
    issueStatus: db.prepare('SELECT status FROM issues WHERE id = ?'),
    insertIssue: db.prepare(
      `INSERT INTO issues (title, culprit, level, platform, status, regressed, first_seen, last_seen,
         event_count, first_release, last_release, grouping_config)
       VALUES (@title, @culprit, @level, @platform, 'unresolved', 0, @seen, @seen, 1, @release,
         @release, @config)`,
    ),
    // The newest event names the issue, as in Sentry; a resolved issue seen again regresses.
    updateIssue: db.prepare(
      `UPDATE issues SET
         title = CASE WHEN @seen >= last_seen THEN @title ELSE title END,
         culprit = CASE WHEN @seen >= last_seen THEN @culprit ELSE culprit END,
         level = CASE WHEN @seen >= last_seen THEN @level ELSE level END,
         last_release = CASE WHEN @seen >= last_seen THEN @release ELSE last_release END,
         first_seen = min(first_seen, @seen),
         last_seen = max(last_seen, @seen),
         event_count = event_count + 1,
         status = CASE WHEN @regressed = 1 THEN 'unresolved' ELSE status END,
         regressed = CASE WHEN @regressed = 1 THEN 1 ELSE regressed END
       WHERE id = @id`,
    ),
    insertHash: db.prepare('INSERT OR IGNORE INTO issue_hashes (hash, issue_id) VALUES (?, ?)'),
    countHour: db.prepare(
      'INSERT INTO issue_hours (issue_id, hour, count) VALUES (?, ?, 1) ON CONFLICT DO UPDATE SET count = count + 1',
    ),
    countEnvironment: db.prepare(
      'INSERT INTO issue_environments (issue_id, environment, count) VALUES (?, ?, 1) ON CONFLICT DO UPDATE SET count = count + 1',
    ),
    countRelease: db.prepare(
      `INSERT INTO issue_releases (issue_id, release, first_seen, last_seen, count) VALUES (?, ?, ?, ?, 1)
       ON CONFLICT DO UPDATE SET count = count + 1, first_seen = min(first_seen, excluded.first_seen),
         last_seen = max(last_seen, excluded.last_seen)`,
    ),
    // A new value is taken only while the key has fewer than MAX_TAG_VALUES (else it counts as
    // "(other)"), and a new key only while the issue has fewer than MAX_TAG_KEYS (else dropped).
    countTag: db.prepare(
      `INSERT INTO issue_tags (issue_id, key, value, count)
       SELECT @issue, @key, @value, 1
       WHERE EXISTS (SELECT 1 FROM issue_tags WHERE issue_id = @issue AND key = @key AND value = @value)
          OR (
            (SELECT count(*) FROM issue_tags WHERE issue_id = @issue AND key = @key) < ${MAX_TAG_VALUES}
            AND (EXISTS (SELECT 1 FROM issue_tags WHERE issue_id = @issue AND key = @key)
              OR (SELECT count(DISTINCT key) FROM issue_tags WHERE issue_id = @issue) < ${MAX_TAG_KEYS}))
          OR (@value = '${OTHER_TAG_VALUE}'
            AND EXISTS (SELECT 1 FROM issue_tags WHERE issue_id = @issue AND key = @key))
       ON CONFLICT DO UPDATE SET count = count + 1`,
    ),
    insertEvent: db.prepare(
      `INSERT INTO events (event_id, issue_id, received_at, timestamp, environment, release, url, payload)
       VALUES (@eventId, @issueId, @receivedAt, @timestamp, @environment, @release, @url, @payload)`,
    ),
    countEvents: db.prepare('SELECT count(*) AS n FROM events'),
    // The oldest events that are neither their issue's first nor its latest (each issue's ends
    // found once per eviction, not once per event).
    evictMiddle: db.prepare(
      `DELETE FROM events WHERE id IN (
         SELECT id FROM events
         WHERE id NOT IN (SELECT min(id) FROM events GROUP BY issue_id)
           AND id NOT IN (SELECT max(id) FROM events GROUP BY issue_id)
         ORDER BY id LIMIT ?)`,
    ),
    // Then the oldest that are not their issue's latest.
    evictFirsts: db.prepare(
      `DELETE FROM events WHERE id IN (
         SELECT id FROM events
         WHERE id NOT IN (SELECT max(id) FROM events GROUP BY issue_id)
         ORDER BY id LIMIT ?)`,
    ),
    // Then the oldest of all: the cap holds whatever was sent.
    evictOldest: db.prepare(
      'DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY id LIMIT ?)',
    ),
    setStatus: db.prepare(
      `UPDATE issues SET status = @status, regressed = CASE WHEN @status = 'unresolved' THEN regressed ELSE 0 END WHERE id = @id`,
    ),
    pruneSessionOutcomes: db.prepare('DELETE FROM session_outcomes WHERE seen_at < ?'),
    healthRowExists: db.prepare(
      'SELECT 1 FROM release_health WHERE release = ? AND environment = ?',
    ),
    healthRows: db.prepare('SELECT count(*) AS n FROM release_health'),
    ensureHealth: db.prepare(
      'INSERT OR IGNORE INTO release_health (release, environment) VALUES (?, ?)',
    ),
    addTo: {
      sessions: outcome('sessions'),
      crashed: outcome('crashed'),
      errored: outcome('errored'),
      abnormal: outcome('abnormal'),
    },
    noteSessionOutcome: db.prepare(
      'INSERT OR IGNORE INTO session_outcomes (session_id, outcome, seen_at) VALUES (?, ?, ?)',
    ),
  };
}

const SORT_SQL: Record<IssueSort, string> = {
  'last-seen': 'last_seen DESC, id DESC',
  'first-seen': 'first_seen DESC, id DESC',
  count: 'event_count DESC, last_seen DESC, id DESC',
};

function listIssues(db: Database.Database, statements: Statements, query: IssueQuery): IssueList {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (query.status === undefined) where.push("status <> 'ignored'");
  else if (query.status !== 'all') {
    where.push('status = @status');
    params.status = query.status;
  }
  if (query.environment !== undefined) {
    where.push('id IN (SELECT issue_id FROM issue_environments WHERE environment = @environment)');
    params.environment = query.environment;
  }
  if (query.release !== undefined) {
    where.push('id IN (SELECT issue_id FROM issue_releases WHERE release = @release)');
    params.release = query.release;
  }
  if (query.search !== undefined && query.search !== '') {
    where.push(
      `(title LIKE @search ESCAPE '\\' OR culprit LIKE @search ESCAPE '\\'
        OR id IN (SELECT issue_id FROM issue_tags WHERE key = 'url' AND value LIKE @search ESCAPE '\\'))`,
    );
    params.search = `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  // better-sqlite3 refuses named values a statement does not use: none when nothing filters.
  const counted = db.prepare(`SELECT count(*) AS n FROM issues ${whereSql}`);
  const { n: total } = (where.length > 0 ? counted.get(params) : counted.get()) as { n: number };
  const pageCount = Math.max(1, Math.ceil(total / query.pageSize));
  const page = Math.min(Math.max(1, query.page), pageCount);
  const rows = db
    .prepare(
      `SELECT * FROM issues ${whereSql} ORDER BY ${SORT_SQL[query.sort]} LIMIT @limit OFFSET @offset`,
    )
    .all({ ...params, limit: query.pageSize, offset: (page - 1) * query.pageSize }) as IssueRow[];
  const { n: hiddenIgnored } =
    query.status === undefined
      ? (db.prepare("SELECT count(*) AS n FROM issues WHERE status = 'ignored'").get() as {
          n: number;
        })
      : { n: 0 };
  return {
    issues: rows.map((row) => summaryOf(row, statements, query.now)),
    total,
    page,
    pageCount,
    hiddenIgnored,
  };
}

function summaryOf(row: IssueRow, statements: Statements, now: number): IssueSummary {
  const lastHour = Math.floor(now / HOUR_MS);
  const hourly = Array<number>(24).fill(0);
  for (const { hour, count } of statements.hoursSince.all(row.id, lastHour - 23) as Array<{
    hour: number;
    count: number;
  }>) {
    const slot = hour - (lastHour - 23);
    if (slot >= 0 && slot < 24) hourly[slot] = count;
  }
  return {
    id: row.id,
    title: row.title,
    culprit: row.culprit,
    level: row.level,
    status: row.status,
    regressed: row.regressed === 1,
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    count: row.event_count,
    hourly,
    environments: (statements.environmentsOf.all(row.id) as Array<{ environment: string }>).map(
      (r) => r.environment,
    ),
    lastRelease: row.last_release,
  };
}
