/**
 * The local inbox on SQLite (better-sqlite3, decision 0310): issues grouped as Sentry groups
 * them, their events, and the counts that outlive the events. One file,
 * `<MONITORING_INBOX_DIR>/inbox.sqlite`, in WAL mode, so the writer (the ingest thread) and the
 * readers (the pages, on the main thread) never wait for each other, and two server processes
 * on one inbox are safe (SQLite's own locking, with a busy timeout).
 *
 * Synchronous on purpose: better-sqlite3 is, and every statement here is an indexed lookup or
 * a bounded scan. This module opens the file (its pragmas, its migrations) and makes the writes:
 * the ingest thread's (storing, eviction, the clear and deletes, ./ingest-worker.ts) and the
 * triage and clear requests of the pages; the pages' reads are ./inbox-reads.server.ts's, on the
 * same connection. Tests use this module directly.
 *
 * What is kept (docs/local-inbox.md):
 * - every issue's counts, first and last seen, hourly counts, environments, releases, tag
 *   values and distinct users (each capped per issue), until the inbox is cleared, or until the
 *   file reaches its cap on disk (`maxMb`, ./store-cap.ts): then the issues seen longest ago go,
 *   with all of it;
 * - raw events up to `maxEvents` in all; past it the oldest go, except each issue's first and
 *   latest, so a flood of one error never evicts a rare one;
 * - for search (`searchSqlOf` in ../issue-search.ts): each event's digest (it goes with the event), the issue's
 *   latest message, trigram indexes over the issue's text and pages, and the tag keys seen;
 * - release health as counts per release and environment; spans, client reports and other
 *   items as counts only, unknown item types under one "other". No item that is not an error
 *   is ever stored as one.
 * - the alerts an event raises, written in its transaction, with their deliveries
 *   (../alerts/alert-outbox.server.ts): an issue's go with it, the rest are pruned after a week.
 *
 * Clearing is a job in batches (`requestClear`, then `clearStep` on the ingest thread until it
 * is done, then `reclaimSpace`), so that no transaction holds the file for long; so is deleting
 * issues (`triage` marks them, `deleteStep` deletes them a batch of events at a time).
 */
import Database from 'better-sqlite3';
import { compare as compareSemver, valid as validSemver } from 'semver';
import {
  type AlertOutbox,
  type AlertOutboxOptions,
  alertOutbox,
} from '../alerts/alert-outbox.server';
import { MAX_KNOWN_TAG_KEYS } from '../issue-search';
import { muteOf, regresses, type TriageAction, type TriageState } from '../triage';
import {
  CLEAR_JOB_SQL,
  type ClearProgress,
  type ClearRow,
  type InboxReads,
  type IssueRow,
  inboxReads,
  MAX_ENVIRONMENTS_PER_ISSUE,
  MAX_RELEASES_PER_ISSUE,
  MAX_TAG_KEYS,
  MAX_TAG_VALUES,
  type MatchQuery,
  triageStateOf,
} from './inbox-reads.server';
import { MIGRATIONS } from './migrations';
import {
  DEFAULT_INBOX_MAX_MB,
  evictionTargetOf,
  type StoreCap,
  type StorePages,
  storeCapOf,
} from './store-cap';

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
  /** The message and exception values, for search (the title has only their first line). */
  message?: string;
  /** The event's `digest` tag (a server failure's), for search: every event's, exactly. */
  digest?: string;
  /** Grouping hashes, strongest first (app, then system); an event joins the issue of any. */
  hashes: string[];
  groupingConfig: string;
  /** Tag pairs for the issue's breakdown, as Sentry derives them (`eventTagsOf`). */
  tags: Array<[string, string]>;
  /** Sentry's `sentry:user` key of the event's user (`id:…`, `email:…`, …), when it has one. */
  userKey?: string;
  /** The normalised event, as JSON. */
  payload: string;
}

/**
 * What one session update adds to release health, as Relay's session metrics count it
 * (../classify-envelope.ts): sessions started, and how many of them errored (any error), had
 * an unhandled one, crashed or ended abnormally. With a `sessionId` each outcome counts once per session, however many updates
 * repeat it; an aggregate (no id) adds its counts as they are.
 */
export interface PreparedSession {
  release: string;
  environment: string;
  started: number;
  errored: number;
  unhandled: number;
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

/** The inbox database: the pages' reads (./inbox-reads.server.ts) and the writes. */
export interface InboxDatabase extends InboxReads {
  /** Stores a batch in one transaction (one fsync); outcomes in the batch's order. */
  ingest(batch: readonly PreparedEnvelope[], receivedAt: number): IngestOutcome[];
  /**
   * Resolves, ignores (with a mute), reopens or deletes issues: those named, or all that a list
   * query matches now (its search run again here). Says how many it changed, or why the search
   * could not run. A delete only marks them (hidden at once, their hashes gone): `deleteStep`
   * deletes them, off the page thread.
   */
  triage(target: TriageTarget, action: TriageAction, now: number): TriageResult;
  /** One batch of the deletes asked for; false when none is left. */
  deleteStep(): boolean;
  /**
   * Asks for every issue there is now, its events and the release health counts to be deleted
   * (by `clearStep`, off the page thread). Cheap: it only notes the request.
   */
  requestClear(now: number): ClearProgress;
  /** One batch of the clear asked for; undefined when none is under way. */
  clearStep(now: number): ClearProgress | undefined;
  /** Gives up to `maxPages` free pages back to the file system; says how many are left. */
  reclaimSpace(maxPages: number): number;
  /** Issues evicted to keep the file within its cap since the last call. */
  takeEvictedIssues(): number;
  /** Copies the WAL into the file and truncates it, when no reader holds it meanwhile. */
  checkpoint(): void;
  /** The alert outbox, written in the ingest's transaction (../alerts/alert-outbox.server.ts). */
  readonly alerts: AlertOutbox;
  close(): void;
}

/** The issues a triage action applies to: those named, or every one a list query matches. */
export type TriageTarget =
  | { kind: 'ids'; ids: readonly number[] }
  | { kind: 'matching'; query: MatchQuery };

export interface TriageResult {
  changed: number;
  /** What in a `matching` search cannot be searched; nothing changed then. */
  problems: string[];
}

export interface InboxDatabaseOptions {
  /** Raw events kept in all; counts are kept regardless. */
  maxEvents: number;
  /** The cap on the file and its WAL, MiB (MONITORING_INBOX_MAX_MB); default DEFAULT_INBOX_MAX_MB. */
  maxMb?: number;
  readonly?: boolean;
  /** The alert channels and rules; without them no alert is raised. */
  alerts?: AlertOutboxOptions;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Release and environment pairs in release health; past it, new pairs count as "(other)". */
const MAX_HEALTH_ROWS = 1_000;
/** Merges the search's FTS5 indexes into one segment each, leaving out deleted rows. */
const SEARCH_INDEX_OPTIMIZE = `INSERT INTO issue_text (issue_text) VALUES ('optimize');
  INSERT INTO issue_url_text (issue_url_text) VALUES ('optimize');`;
/** Issues evicted per statement, and issues a clear deletes per transaction. */
const EVICTION_BATCH = 20;
const CLEAR_BATCH = 200;
/** A deleted issue's events deleted per transaction, so that ingest waits for one batch at most. */
const DELETE_BATCH = 500;
/**
 * Distinct users kept per issue (decision 1121): a client can name a new user in every event,
 * and each would be a row. Past it the issue notes that more came, and shows "1,000+ users".
 */
export const MAX_USERS_PER_ISSUE = 1_000;

export function openInboxDatabase(path: string, options: InboxDatabaseOptions): InboxDatabase {
  const db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: false });
  try {
    // Another process (a replica, the other thread) may hold the write lock for a moment.
    db.pragma('busy_timeout = 5000');
    const cap = storeCapOf(options.maxMb ?? DEFAULT_INBOX_MAX_MB);
    if (!options.readonly) {
      takeIncrementalVacuum(db);
      db.pragma('journal_mode = WAL');
      // FULL: a commit is on disk before the tunnel answers 200, power loss included.
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      // The WAL's share of the cap (./store-cap.ts): checkpointed at a quarter of it, and
      // truncated back to that afterwards, so a burst of writes does not keep its high-water size.
      db.pragma(`wal_autocheckpoint = ${cap.walAutocheckpointPages}`);
      db.pragma(`journal_size_limit = ${cap.journalSizeLimitBytes}`);
      migrate(db);
    }
    return inboxDatabase(db, options, cap);
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Free pages can be given back to the file system only with auto_vacuum=INCREMENTAL, which a
 * file takes when it is created or, for a file made before, with one VACUUM (once, at the first
 * start of this version; another process holding the file makes it wait, or try at its next
 * start).
 */
function takeIncrementalVacuum(db: Database.Database): void {
  const INCREMENTAL = 2;
  if (db.pragma('auto_vacuum', { simple: true }) === INCREMENTAL) return;
  db.pragma('auto_vacuum = INCREMENTAL');
  try {
    db.exec('VACUUM');
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
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

function inboxDatabase(
  db: Database.Database,
  options: InboxDatabaseOptions,
  cap: StoreCap,
): InboxDatabase {
  const reads = inboxReads(db);
  const statements = prepareWriting(db, options.readonly ?? false);
  const alerts = alertOutbox(db, options.alerts ?? { channels: [] });
  let evictedIssues = 0;

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
    // The issue's triage state and counts before this event, for whether it regresses it.
    let before: { state: TriageState; events: number; users: number } | undefined;
    let releaseFirstSeen: number | undefined;
    const seen = Math.min(event.timestamp, receivedAt);
    if (issueId === undefined) {
      isNewIssue = true;
      issueId = Number(
        s.insertIssue.run({
          title: event.title,
          culprit: event.culprit,
          message: event.message ?? '',
          level: event.level,
          platform: event.platform,
          seen,
          release: event.release,
          config: event.groupingConfig,
        }).lastInsertRowid,
      );
    } else {
      const row = s.issueTriage.get(issueId) as IssueRow;
      before = { state: triageStateOf(row), events: row.event_count, users: row.user_count };
      // Read before this event counts its release: was it seen before the resolution?
      if (before.state.status === 'resolved' && before.state.inNextRelease) {
        const first = s.releaseFirstSeen.get(event.release) as { at: number | null };
        releaseFirstSeen = first.at ?? undefined;
      }
      s.updateIssue.run({
        id: issueId,
        title: event.title,
        culprit: event.culprit,
        message: event.message ?? '',
        level: event.level,
        seen,
        release: event.release,
      });
    }
    // Every hash the event has now points at its issue: a later change of algorithm (a new
    // config's hashes) joins the issue instead of splitting it.
    for (const hash of event.hashes) s.insertHash.run(hash, issueId);
    s.countHour.run(issueId, Math.floor(event.timestamp / HOUR_MS));
    // A value past the issue's cap counts as "(other)" (the second run, forced). A new issue has
    // room: forced at once, without counting its rows.
    const force = isNewIssue ? 1 : 0;
    const environment = { issue: issueId, environment: event.environment, force };
    if (s.countEnvironment.run(environment).changes === 0) {
      s.countEnvironment.run({ ...environment, environment: OTHER_TAG_VALUE, force: 1 });
    }
    const release = { issue: issueId, release: event.release, seen, force };
    if (s.countRelease.run(release).changes === 0) {
      s.countRelease.run({ ...release, release: OTHER_TAG_VALUE, force: 1 });
    }
    // Keys seen, for search to tell a typo from a tag.
    for (const [key] of event.tags) s.noteTagKey.run(key);
    if (isNewIssue) {
      // No rows to read yet: the caps applied here (`firstEventTags`).
      const { counts, urls } = firstEventTags(event.tags);
      for (const { key, value, count } of counts) s.addTag.run(issueId, key, value, count);
      for (const url of urls) s.noteUrl.run(issueId, url);
    } else {
      for (const [key, value] of event.tags) {
        const counted = s.countTag.run({ issue: issueId, key, value });
        if (counted.changes === 0) s.countTag.run({ issue: issueId, key, value: OTHER_TAG_VALUE });
        // The page URLs search reads (within the tag's own cap).
        else if (key === 'url') s.noteUrl.run(issueId, value);
      }
    }
    const newUser = event.userKey !== undefined && noteUser(s, issueId, event.userKey);
    const state = before?.state;
    const regressed =
      before !== undefined &&
      state !== undefined &&
      regresses(state, {
        now: receivedAt,
        events: before.events + 1,
        users: before.users + (newUser ? 1 : 0),
        releaseIsNewer: () =>
          state.status === 'resolved' &&
          state.inNextRelease !== undefined &&
          releaseIsNewer(event.release, state.inNextRelease.after, {
            firstSeen: releaseFirstSeen,
            resolvedAt: state.inNextRelease.at,
          }),
      });
    if (regressed) s.regress.run(issueId);
    s.insertEvent.run({
      eventId: event.eventId,
      issueId,
      receivedAt,
      timestamp: event.timestamp,
      environment: event.environment,
      release: event.release,
      url: event.url,
      digest: event.digest ?? null,
      payload: event.payload,
    });
    return { kind: 'stored', issueId, isNewIssue, regressed };
  };

  /**
   * A user the issue has not seen yet is kept while it has fewer than its cap, else noted. Says
   * whether it was counted.
   */
  const noteUser = (s: WriteStatements, issueId: number, userKey: string): boolean => {
    if (s.userExists.get(issueId, userKey)) return false;
    const { user_count } = s.userCount.get(issueId) as { user_count: number };
    if (user_count >= MAX_USERS_PER_ISSUE) {
      s.notePastCap.run(issueId);
      return false;
    }
    s.insertUser.run(issueId, userKey);
    s.countUser.run(issueId);
    return true;
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
    for (const outcome of ['errored', 'unhandled', 'crashed', 'abnormal'] as const) {
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
   * Each stage reads the front of an index and the count is a row the triggers keep
   * (`EVENT_CAP_SQL`), so this costs what it frees, not what is stored.
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

  /**
   * The file back within its cap (./store-cap.ts): past the threshold the issues seen longest
   * ago go, a few at a time by the last-seen index (their events, hashes, hours, tags and
   * releases with them, by ON DELETE CASCADE), until the data is back down; an issue is never
   * evicted while it is the only one left, only its oldest events are. The pages freed are
   * reused by the next writes before the file grows, so the file stays within its share without
   * a vacuum (which would move pages, and write them all to the WAL). The cost follows what is
   * freed, not how much is stored.
   */
  const keepWithinCap = () => {
    const s = statements.write();
    const target = evictionTargetOf(pagesOf(s), cap);
    if (target !== undefined) {
      while (usedPagesOf(s) > target) {
        const issues = s.evictOldestIssues.run(EVICTION_BATCH).changes;
        evictedIssues += issues;
        if (issues === 0 && s.evictOldestEvents.run(EVICTION_BATCH).changes === 0) break;
      }
    }
  };

  const ingestBatch = db.transaction((batch: readonly PreparedEnvelope[], receivedAt: number) => {
    const outcomes = batch.map((prepared) => {
      const outcome = ingestOne(prepared, receivedAt);
      // In the same transaction: an alert commits with its event, or not at all.
      if (outcome.kind === 'stored' && prepared.event) {
        alerts.noteStored(outcome.issueId, outcome, prepared.event, receivedAt);
      }
      // After each envelope that stored something: the file grows by at most one envelope's
      // rows past the threshold.
      if (outcome.kind === 'stored' || prepared.sessions.length > 0) keepWithinCap();
      return outcome;
    });
    if (outcomes.some((outcome) => outcome.kind === 'stored')) evict();
    if (batch.some((prepared) => prepared.sessions.length > 0)) {
      const s = statements.write();
      s.pruneSessionOutcomes.run(receivedAt - DAY_MS);
      // Past the cap's share the oldest go: a session updated again after that counts again.
      const { n } = s.sessionOutcomeCount.get() as { n: number };
      if (n > cap.maxSessionOutcomes) s.evictSessionOutcomes.run(n - cap.maxSessionOutcomes);
    }
    return outcomes;
  });

  const clearStep = db.transaction((now: number): ClearProgress | undefined => {
    const s = statements.write();
    const job = s.clearJob.get() as ClearRow | undefined;
    if (!job || job.finished_at !== null) return undefined;
    const outcomes = s.clearSessionOutcomes.run(job.requested_at, CLEAR_BATCH * 10).changes;
    const issues = s.clearIssues.run(job.up_to, CLEAR_BATCH).changes;
    const done = issues < CLEAR_BATCH && outcomes < CLEAR_BATCH * 10;
    const deleted = job.deleted + issues;
    // The text index keeps a deleted row's entries until its segments merge: merged now, so a
    // clear gives back what search held (the issues that came in since are a few).
    if (done) db.exec(SEARCH_INDEX_OPTIMIZE);
    s.noteClearStep.run({ deleted, finished: done ? now : null });
    return { total: Math.max(job.total, deleted), deleted, done };
  });

  /** One issue's triage: false when there is no such issue (or it is being deleted). */
  const triageOne = (
    s: WriteStatements,
    id: number,
    action: TriageAction,
    now: number,
  ): boolean => {
    const row = s.issueTriage.get(id) as IssueRow | undefined;
    if (!row || row.deleted_at !== null) return false;
    if (action.kind === 'delete') {
      // Its hashes go now: an event of it from now on makes a new issue.
      s.markDeleted.run(now, id);
      s.deleteHashes.run(id);
      return true;
    }
    const mute =
      action.kind === 'ignore'
        ? muteOf(action.mute, { now, events: row.event_count, users: row.user_count })
        : undefined;
    const next = action.kind === 'resolve-next-release';
    s.setTriage.run({
      id,
      status:
        action.kind === 'ignore'
          ? 'ignored'
          : action.kind === 'unresolve'
            ? 'unresolved'
            : 'resolved',
      muteKind: mute?.kind ?? null,
      muteTarget: mute?.target ?? null,
      muteCount: mute && mute.kind !== 'time' ? mute.count : null,
      resolvedAfter: next ? row.last_release : null,
      resolvedAt: next ? now : null,
    });
    return true;
  };

  const triage = db.transaction(
    (target: TriageTarget, action: TriageAction, now: number): TriageResult => {
      const s = statements.write();
      let ids: readonly number[];
      if (target.kind === 'ids') ids = target.ids;
      else {
        const matched = reads.matchingIssueIds({ ...target.query, now });
        if (matched.problems.length > 0) return { changed: 0, problems: matched.problems };
        ids = matched.ids;
      }
      let changed = 0;
      for (const id of ids) if (triageOne(s, id, action, now)) changed++;
      return { changed, problems: [] };
    },
  );

  const deleteStep = db.transaction((): boolean => {
    const s = statements.write();
    const next = s.nextDeleted.get() as { id: number } | undefined;
    if (!next) return false;
    // Its events a batch at a time, then the issue with what is left (its counts, tags, users:
    // bounded per issue), by ON DELETE CASCADE.
    if (s.deleteEventsOf.run(next.id, DELETE_BATCH).changes < DELETE_BATCH) {
      s.deleteIssue.run(next.id);
    }
    return true;
  });

  return {
    ...reads,
    // IMMEDIATE: the write lock at BEGIN. A deferred transaction reads first, and when another
    // worker's ingest thread commits in between, SQLite cannot wait for its upgrade to a
    // writer: it fails at once (SQLITE_BUSY_SNAPSHOT), whatever the busy timeout.
    ingest: (batch, receivedAt) => ingestBatch.immediate(batch, receivedAt),
    triage: (target, action, now) => triage.immediate(target, action, now),
    deleteStep: () => deleteStep.immediate(),
    requestClear(now) {
      return db
        .transaction((): ClearProgress => {
          const s = statements.write();
          const { upTo, n } = s.issuesNow.get() as { upTo: number | null; n: number };
          const running = s.clearJob.get() as ClearRow | undefined;
          const before = running && running.finished_at === null ? running.deleted : 0;
          s.startClear.run({ upTo: upTo ?? 0, total: n + before, deleted: before, now });
          // Small tables (MAX_HEALTH_ROWS, the item types): at once.
          db.exec('DELETE FROM release_health; DELETE FROM item_counts; DELETE FROM tag_keys;');
          return { total: n + before, deleted: before, done: false };
        })
        .immediate();
    },
    clearStep: (now) => clearStep.immediate(now),
    reclaimSpace(maxPages) {
      if (maxPages > 0) db.pragma(`incremental_vacuum(${Math.floor(maxPages)})`);
      return db.pragma('freelist_count', { simple: true }) as number;
    },
    takeEvictedIssues() {
      const taken = evictedIssues;
      evictedIssues = 0;
      return taken;
    },
    checkpoint() {
      db.pragma('wal_checkpoint(TRUNCATE)');
    },
    alerts,
    close() {
      db.close();
    },
  };
}

function pagesOf(s: WriteStatements): StorePages {
  return {
    pageCount: s.pageCount.get() as number,
    freePages: s.freePages.get() as number,
  };
}

function usedPagesOf(s: WriteStatements): number {
  const { pageCount, freePages } = pagesOf(s);
  return pageCount - freePages;
}

/**
 * The event cap's statements (`evict`), each an index lookup or the front of an index, so that
 * they cost what they free; the unit test reads their query plans.
 */
export const EVENT_CAP_SQL = {
  // Kept by triggers (migration 5): counting the table would read all of an index.
  countEvents: "SELECT n FROM row_counts WHERE name = 'events'",
  // The oldest events that are neither their issue's first nor its latest: the front of a
  // partial index whose rows the triggers keep (migration 5).
  evictMiddle: `DELETE FROM events WHERE id IN (
      SELECT id FROM events INDEXED BY events_middle
      WHERE is_first = 0 AND is_latest = 0
      ORDER BY id LIMIT ?)`,
  // Then the oldest that are not their issue's latest.
  evictFirsts: `DELETE FROM events WHERE id IN (
      SELECT id FROM events INDEXED BY events_not_latest
      WHERE is_latest = 0
      ORDER BY id LIMIT ?)`,
  // Then the oldest of all: the cap holds whatever was sent.
  evictOldest: 'DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY id LIMIT ?)',
} as const;

type WriteStatements = ReturnType<typeof prepareWrites>;

/** The writes' statements, prepared on the first write: a read-only connection has none. */
function prepareWriting(db: Database.Database, readonly: boolean) {
  let writes: WriteStatements | undefined;
  return {
    write() {
      if (readonly) throw new Error('the inbox database was opened read-only');
      writes ??= prepareWrites(db);
      return writes;
    },
  };
}

function prepareWrites(db: Database.Database) {
  const outcome = (column: string) =>
    db.prepare(
      `UPDATE release_health SET ${column} = ${column} + ? WHERE release = ? AND environment = ?`,
    );
  return {
    clearJob: db.prepare(CLEAR_JOB_SQL),
    countItem: db.prepare(
      'INSERT INTO item_counts (type, count) VALUES (?, ?) ON CONFLICT (type) DO UPDATE SET count = count + excluded.count',
    ),
    eventExists: db.prepare('SELECT 1 FROM events WHERE event_id = ?'),
    issueOfHash: db.prepare('SELECT issue_id FROM issue_hashes WHERE hash = ?'),
    issueTriage: db.prepare(
      `SELECT status, mute_kind, mute_target, mute_count, resolved_after_release, resolved_at,
         deleted_at, event_count, user_count, last_release FROM issues WHERE id = ?`,
    ),
    // Across issues (the release's own index): when the release was first seen, if ever.
    releaseFirstSeen: db.prepare(
      'SELECT min(first_seen) AS at FROM issue_releases WHERE release = ?',
    ),
    // An ignored issue's mute ended, or a resolved one seen again (../triage.ts `regresses`).
    regress: db.prepare(
      `UPDATE issues SET status = 'unresolved', regressed = 1, mute_kind = NULL,
         mute_target = NULL, mute_count = NULL, resolved_after_release = NULL, resolved_at = NULL
       WHERE id = ?`,
    ),
    insertIssue: db.prepare(
      // The id from the floor (migrations.ts, issue_ids): never one a deleted issue had.
      `INSERT INTO issues (id, title, culprit, message, level, platform, status, regressed,
         first_seen, last_seen, event_count, first_release, last_release, grouping_config)
       VALUES ((SELECT next FROM issue_ids), @title, @culprit, @message, @level, @platform,
         'unresolved', 0, @seen, @seen, 1, @release, @release, @config)`,
    ),
    // The newest event names the issue, as in Sentry (whether it regresses: `regress`).
    updateIssue: db.prepare(
      `UPDATE issues SET
         title = CASE WHEN @seen >= last_seen THEN @title ELSE title END,
         culprit = CASE WHEN @seen >= last_seen THEN @culprit ELSE culprit END,
         message = CASE WHEN @seen >= last_seen THEN @message ELSE message END,
         level = CASE WHEN @seen >= last_seen THEN @level ELSE level END,
         last_release = CASE WHEN @seen >= last_seen THEN @release ELSE last_release END,
         first_seen = min(first_seen, @seen),
         last_seen = max(last_seen, @seen),
         event_count = event_count + 1
       WHERE id = @id`,
    ),
    insertHash: db.prepare('INSERT OR IGNORE INTO issue_hashes (hash, issue_id) VALUES (?, ?)'),
    countHour: db.prepare(
      'INSERT INTO issue_hours (issue_id, hour, count) VALUES (?, ?, 1) ON CONFLICT DO UPDATE SET count = count + 1',
    ),
    // A new environment or release is taken while the issue has fewer than its cap (or when
    // forced: the "(other)" row).
    countEnvironment: db.prepare(
      `INSERT INTO issue_environments (issue_id, environment, count)
       SELECT @issue, @environment, 1
       WHERE @force = 1
          OR EXISTS (SELECT 1 FROM issue_environments WHERE issue_id = @issue AND environment = @environment)
          OR (SELECT count(*) FROM issue_environments WHERE issue_id = @issue) < ${MAX_ENVIRONMENTS_PER_ISSUE}
       ON CONFLICT DO UPDATE SET count = count + 1`,
    ),
    countRelease: db.prepare(
      `INSERT INTO issue_releases (issue_id, release, first_seen, last_seen, count)
       SELECT @issue, @release, @seen, @seen, 1
       WHERE @force = 1
          OR EXISTS (SELECT 1 FROM issue_releases WHERE issue_id = @issue AND release = @release)
          OR (SELECT count(*) FROM issue_releases WHERE issue_id = @issue) < ${MAX_RELEASES_PER_ISSUE}
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
    addTag: db.prepare(
      `INSERT INTO issue_tags (issue_id, key, value, count) VALUES (?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET count = count + excluded.count`,
    ),
    noteUrl: db.prepare('INSERT OR IGNORE INTO issue_urls (issue_id, url) VALUES (?, ?)'),
    userExists: db.prepare('SELECT 1 FROM issue_users WHERE issue_id = ? AND user_key = ?'),
    userCount: db.prepare('SELECT user_count FROM issues WHERE id = ?'),
    insertUser: db.prepare('INSERT INTO issue_users (issue_id, user_key) VALUES (?, ?)'),
    countUser: db.prepare('UPDATE issues SET user_count = user_count + 1 WHERE id = ?'),
    notePastCap: db.prepare('UPDATE issues SET users_past_cap = 1 WHERE id = ?'),
    // Keys seen, for search to tell a typo from a tag (a row the triggers count bounds them).
    noteTagKey: db.prepare(
      `INSERT OR IGNORE INTO tag_keys (key) SELECT ?
       WHERE (SELECT n FROM row_counts WHERE name = 'tag_keys') < ${MAX_KNOWN_TAG_KEYS}`,
    ),
    insertEvent: db.prepare(
      `INSERT INTO events (event_id, issue_id, received_at, timestamp, environment, release, url,
         digest, payload)
       VALUES (@eventId, @issueId, @receivedAt, @timestamp, @environment, @release, @url, @digest,
         @payload)`,
    ),
    countEvents: db.prepare(EVENT_CAP_SQL.countEvents),
    evictMiddle: db.prepare(EVENT_CAP_SQL.evictMiddle),
    evictFirsts: db.prepare(EVENT_CAP_SQL.evictFirsts),
    evictOldest: db.prepare(EVENT_CAP_SQL.evictOldest),
    // The issues seen longest ago (the last-seen index, read backwards), never the newest one.
    evictOldestIssues: db.prepare(
      `DELETE FROM issues WHERE id IN (
         SELECT id FROM issues ORDER BY last_seen, id LIMIT ?)
       AND id <> (SELECT id FROM issues ORDER BY last_seen DESC, id DESC LIMIT 1)`,
    ),
    // With one issue left: its oldest events, never its latest.
    evictOldestEvents: db.prepare(
      `DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY id LIMIT ?)
       AND id <> (SELECT max(id) FROM events)`,
    ),
    pageCount: db.prepare('PRAGMA page_count').pluck(),
    freePages: db.prepare('PRAGMA freelist_count').pluck(),
    sessionOutcomeCount: db.prepare("SELECT n FROM row_counts WHERE name = 'session_outcomes'"),
    evictSessionOutcomes: db.prepare(
      `DELETE FROM session_outcomes WHERE (session_id, outcome) IN (
         SELECT session_id, outcome FROM session_outcomes ORDER BY seen_at LIMIT ?)`,
    ),
    issuesNow: db.prepare('SELECT max(id) AS upTo, count(*) AS n FROM issues'),
    startClear: db.prepare(
      `INSERT OR REPLACE INTO inbox_clear (id, up_to, total, deleted, requested_at, finished_at)
       VALUES (1, @upTo, @total, @deleted, @now, NULL)`,
    ),
    clearIssues: db.prepare(
      'DELETE FROM issues WHERE id IN (SELECT id FROM issues WHERE id <= ? ORDER BY id LIMIT ?)',
    ),
    clearSessionOutcomes: db.prepare(
      `DELETE FROM session_outcomes WHERE (session_id, outcome) IN (
         SELECT session_id, outcome FROM session_outcomes WHERE seen_at <= ? LIMIT ?)`,
    ),
    noteClearStep: db.prepare(
      'UPDATE inbox_clear SET deleted = @deleted, finished_at = @finished WHERE id = 1',
    ),
    // A new status drops the last one's mute and release: each action sets its own.
    setTriage: db.prepare(
      `UPDATE issues SET status = @status,
         regressed = CASE WHEN @status = 'unresolved' THEN regressed ELSE 0 END,
         mute_kind = @muteKind, mute_target = @muteTarget, mute_count = @muteCount,
         resolved_after_release = @resolvedAfter, resolved_at = @resolvedAt
       WHERE id = @id`,
    ),
    markDeleted: db.prepare('UPDATE issues SET deleted_at = ? WHERE id = ?'),
    deleteHashes: db.prepare('DELETE FROM issue_hashes WHERE issue_id = ?'),
    nextDeleted: db.prepare(
      'SELECT id FROM issues INDEXED BY issues_deleted WHERE deleted_at IS NOT NULL ORDER BY id LIMIT 1',
    ),
    deleteEventsOf: db.prepare(
      'DELETE FROM events WHERE id IN (SELECT id FROM events WHERE issue_id = ? ORDER BY id LIMIT ?)',
    ),
    deleteIssue: db.prepare('DELETE FROM issues WHERE id = ?'),
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
      unhandled: outcome('unhandled'),
      abnormal: outcome('abnormal'),
    },
    noteSessionOutcome: db.prepare(
      'INSERT OR IGNORE INTO session_outcomes (session_id, outcome, seen_at) VALUES (?, ?, ?)',
    ),
  };
}

// The tags an issue keeps for its breakdown (the issue's page): MAX_TAG_KEYS keys, each with
// MAX_TAG_VALUES values; past a kept key's cap its new values count as "(other)", keys past the
// issue's cap are not kept, so invented keys and values cannot swell an issue (issue 32).
//
// The ingest applies this rule in SQL to the events of an issue it has (`countTag`, which reads the issue's tag rows for every tag), and through
// `firstEventTags` to the event that opens an issue: with no rows yet the rule needs nothing
// from the database, and a flood of new issues with 30 tags each spent most of the ingest
// thread's time in those reads (decision 1015).

/** The value counted for what is past a cap (the database's release, environment and health caps too). */
export const OTHER_TAG_VALUE = '(other)';

export interface TagCount {
  key: string;
  value: string;
  count: number;
}

/**
 * An issue's tag rows after its first event, as `countTag` would leave them tag after tag on an
 * issue that has none: a value is counted when its key has room (a new key while the issue has
 * room for keys), else as "(other)" of a kept key, else not at all. `urls`: the page URLs
 * counted under their own value, which search reads.
 */
export function firstEventTags(tags: ReadonlyArray<readonly [string, string]>): {
  counts: TagCount[];
  urls: string[];
} {
  const keys = new Map<string, Map<string, number>>();
  const urls = new Set<string>();
  for (const [key, value] of tags) {
    const values = keys.get(key);
    const taken =
      values?.has(value) ||
      ((values?.size ?? 0) < MAX_TAG_VALUES &&
        (values !== undefined || keys.size < MAX_TAG_KEYS)) ||
      (value === OTHER_TAG_VALUE && values !== undefined);
    if (taken) {
      const kept = values ?? new Map<string, number>();
      keys.set(key, kept);
      kept.set(value, (kept.get(value) ?? 0) + 1);
      if (key === 'url') urls.add(value);
    } else if (values) {
      values.set(OTHER_TAG_VALUE, (values.get(OTHER_TAG_VALUE) ?? 0) + 1);
    }
  }
  const counts = [...keys].flatMap(([key, values]) =>
    [...values].map(([value, count]) => ({ key, value, count })),
  );
  return { counts, urls: [...urls] };
}

// Which release is newer, for "resolve in the next release" (decision 1222), as Sentry orders
// them. Here, beside its one caller, rather than in ../triage.ts: the pages' bundle takes
// triage.ts, and would take the semver parser with it.

/**
 * Whether `release` is newer than `resolvedIn`, the release an issue was resolved in the next
 * one of (decision 1222). As Sentry: by semver when both parse (a `package@` prefix set aside,
 * as Sentry's release names carry one), else a release first seen after the resolution is newer
 * (`firstSeen` undefined: never seen before, so it is). An event without a release is never
 * newer, nor is the same release.
 */
export function releaseIsNewer(
  release: string,
  resolvedIn: string,
  seen: { firstSeen: number | undefined; resolvedAt: number },
): boolean {
  if (release === '' || release === resolvedIn) return false;
  const version = semverOf(release);
  const resolvedVersion = semverOf(resolvedIn);
  if (version && resolvedVersion && version.name === resolvedVersion.name) {
    return compareSemver(version.version, resolvedVersion.version) > 0;
  }
  return seen.firstSeen === undefined || seen.firstSeen > seen.resolvedAt;
}

function semverOf(release: string): { name: string; version: string } | undefined {
  const at = release.lastIndexOf('@');
  const name = at > 0 ? release.slice(0, at) : '';
  const version = validSemver(at > 0 ? release.slice(at + 1) : release);
  return version ? { name, version } : undefined;
}
