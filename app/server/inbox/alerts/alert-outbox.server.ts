/**
 * The alert outbox, in the inbox database (migration 9; decisions 1200–1202): an alert is raised
 * inside the transaction that stores the event that triggers it, with one delivery row per
 * channel, so it is never lost (it commits with the event) nor doubled (a retried envelope is a
 * duplicate and raises nothing). Senders in every worker claim due rows with a lease
 * (`claim`: one UPDATE … RETURNING), so a row goes to one sender at a time and a crashed
 * sender's rows are claimed again once its lease ends.
 *
 * Bounded: past FLOOD_LIMIT alerts a minute the rest gather in one summary (./alert-policy.ts);
 * alerts done for PRUNE_AFTER_MS, or past MAX_KEPT_ALERTS, are pruned; an issue's alerts go with
 * the issue (ON DELETE CASCADE: a clear or an eviction leaves no orphan, and an alert about an
 * issue that is gone is not sent).
 */
import type Database from 'better-sqlite3';
import { type Alert, type AlertIssue, type AlertKind, inboxLink, issueLink } from './alert-message';
import {
  type ChannelAttempt,
  countsTowardFlood,
  FLOOD_LIMIT,
  floodPlan,
  type NextStep,
  type SpikeRule,
  type StoredIssueFacts,
  spikeStep,
  triggerOf,
} from './alert-policy';

/** How long a claim holds: well past a webhook's time-out, so a live sender always finishes first. */
export const CLAIM_LEASE_MS = 60_000;
/** Sent and failed alerts are kept this long for the issues' history, then pruned. */
export const PRUNE_AFTER_MS = 7 * 24 * 3_600_000;
/** Alerts kept at most, whatever their age (the flood limit keeps this far off). */
export const MAX_KEPT_ALERTS = 10_000;
/** Titles a summary names; the rest it only counts. */
const SUMMARY_TITLES = 5;

export interface AlertOutboxOptions {
  /** The channels' names (`webhook <host>`); none: no alert is raised. */
  channels: readonly string[];
  spike?: SpikeRule;
  /** PUBLIC_URL, for the alerts' links; without it they are paths. */
  publicUrl?: string;
}

/** One delivery claimed by a sender: send `alert` to `channel`, then `settle` it. */
export interface ClaimedDelivery {
  id: number;
  channel: string;
  /** Attempts so far, this one included. */
  attempts: number;
  raisedAt: number;
  alert: Alert;
  /** The lease's end: the claim's token, so that only its holder settles it. */
  claimedUntil: number;
}

/** One alert of an issue, per channel, as its page lists them. */
export interface AlertHistoryEntry {
  kind: AlertKind;
  raisedAt: number;
  channel: string;
  state: 'pending' | 'sent' | 'failed';
  attempts: number;
  /** Why the last attempt failed (never a secret: a status, a time-out). */
  reason: string | null;
}

export interface AlertOutbox {
  /** The channels' names, as configured. */
  channels(): readonly string[];
  /**
   * Called inside the ingest's transaction for every stored event: raises the alert it
   * triggers, if any. Says whether it raised one.
   */
  noteStored(
    issueId: number,
    facts: StoredIssueFacts,
    event: { environment: string; release: string },
    at: number,
  ): boolean;
  /** The inbox's "Send a test alert": one alert to every channel, about the latest issue. */
  raiseTest(now: number): boolean;
  /** Whether an alert was raised since the last call (the sender is woken for it). */
  takeRaised(): boolean;
  /** When the next delivery is due (undefined: none pending). */
  nextDue(): number | undefined;
  /** Claims up to `limit` due deliveries for CLAIM_LEASE_MS. */
  claim(now: number, limit: number): ClaimedDelivery[];
  /** Records an attempt's outcome; false when the claim had lapsed (another sender has it). */
  settle(claimed: ClaimedDelivery, step: NextStep, now: number): boolean;
  /** Each channel's latest attempt, for /health. */
  latestAttempts(): ChannelAttempt[];
  /** An issue's alerts, newest first. */
  history(issueId: number, limit: number): AlertHistoryEntry[];
  /** Deletes what is done and old; says how many alerts went. */
  prune(now: number): number;
}

interface IssueRow {
  id: number;
  title: string;
  culprit: string;
  level: string;
  event_count: number;
  user_count: number;
  first_seen: number;
  last_seen: number;
}

export function alertOutbox(db: Database.Database, options: AlertOutboxOptions): AlertOutbox {
  let prepared: ReturnType<typeof prepare> | undefined;
  // Prepared on first use: the tables exist once the database is migrated.
  const s = () => {
    prepared ??= prepare(db);
    return prepared;
  };
  const enabled = options.channels.length > 0;
  let raised = false;

  const issueOf = (issueId: number, event?: { environment: string; release: string }) => {
    const row = s().issue.get(issueId) as IssueRow | undefined;
    if (!row) return undefined;
    const issue: AlertIssue = {
      id: row.id,
      title: row.title,
      culprit: row.culprit,
      level: row.level,
      eventCount: row.event_count,
      userCount: row.user_count,
      firstSeen: row.first_seen,
      lastSeen: row.last_seen,
      release: event?.release ?? null,
      environment: event?.environment ?? null,
      link: issueLink(options.publicUrl, row.id),
    };
    return issue;
  };

  const insert = (alert: Alert, at: number, dueAt: number, alone: boolean) => {
    const alertId = Number(
      s().insertAlert.run({
        kind: alert.kind,
        issue: alert.issue?.id ?? null,
        at,
        due: dueAt,
        body: JSON.stringify(alert),
        alone: alone ? 1 : 0,
      }).lastInsertRowid,
    );
    for (const channel of options.channels) s().insertDelivery.run(alertId, channel, dueAt);
    raised = true;
  };

  /** Raised alone, or gathered into the summary due when the flood limit frees a place. */
  const raise = (alert: Alert, at: number) => {
    if (!countsTowardFlood(alert.kind)) {
      insert(alert, at, at, false);
      return;
    }
    const recent = (s().recentAlone.all(at - 60_000) as Array<{ raised_at: number }>).map(
      (row) => row.raised_at,
    );
    const plan = floodPlan(recent, at);
    if (plan.kind === 'alone') {
      insert(alert, at, at, true);
      return;
    }
    const title = alert.issue?.title ?? alert.kind;
    const open = s().openSummary.get(at) as { id: number; body: string } | undefined;
    if (open) {
      const body = JSON.parse(open.body) as Alert;
      const summary = body.summary ?? {
        count: 0,
        titles: [],
        link: inboxLink(options.publicUrl, '/errors'),
      };
      summary.count += 1;
      if (summary.titles.length < SUMMARY_TITLES) summary.titles.push(title);
      s().updateBody.run(JSON.stringify({ ...body, summary }), open.id);
      return;
    }
    const summary = { count: 1, titles: [title], link: inboxLink(options.publicUrl, '/errors') };
    insert({ kind: 'summary', summary }, at, plan.dueAt, false);
  };

  return {
    channels: () => options.channels,
    noteStored(issueId, facts, event, at) {
      if (!enabled) return false;
      const trigger = triggerOf(facts);
      let spiking = false;
      if (options.spike) {
        const before = s().spikeOf.get(issueId) as
          | { window_start: number; count: number; alerted: number }
          | undefined;
        const step = spikeStep(
          before && {
            windowStart: before.window_start,
            count: before.count,
            alerted: before.alerted === 1,
          },
          at,
          options.spike,
        );
        s().saveSpike.run({
          issue: issueId,
          start: step.window.windowStart,
          count: step.window.count,
          alerted: step.window.alerted ? 1 : 0,
        });
        spiking = step.alert;
      }
      const kind = trigger ?? (spiking ? 'spike' : undefined);
      if (kind === undefined) return false;
      const issue = issueOf(issueId, event);
      if (!issue) return false;
      raise(
        {
          kind,
          issue,
          ...(kind === 'spike' && options.spike ? { spike: options.spike.text } : {}),
        },
        at,
      );
      return true;
    },
    raiseTest(now) {
      if (!enabled) return false;
      const latest = s().latestIssue.get() as { id: number } | undefined;
      const issue = latest ? issueOf(latest.id) : undefined;
      db.transaction(() => raise({ kind: 'test', ...(issue ? { issue } : {}) }, now)).immediate();
      return true;
    },
    takeRaised() {
      const was = raised;
      raised = false;
      return was;
    },
    nextDue() {
      const row = s().nextDue.get() as { due: number | null } | undefined;
      return row?.due ?? undefined;
    },
    claim(now, limit) {
      const claimedUntil = now + CLAIM_LEASE_MS;
      const rows = db
        .transaction(
          () =>
            s().claim.all({ now, until: claimedUntil, limit }) as Array<{
              id: number;
              channel: string;
              attempts: number;
              raised_at: number;
              body: string;
            }>,
        )
        .immediate();
      return rows.map((row) => ({
        id: row.id,
        channel: row.channel,
        attempts: row.attempts,
        raisedAt: row.raised_at,
        alert: JSON.parse(row.body) as Alert,
        claimedUntil,
      }));
    },
    settle(claimed, step, now) {
      const params = { id: claimed.id, until: claimed.claimedUntil, now };
      const changed =
        step.state === 'sent'
          ? s().settleSent.run(params)
          : step.state === 'pending'
            ? s().settleRetry.run({ ...params, notBefore: step.notBefore, reason: step.reason })
            : s().settleFailed.run({ ...params, reason: step.reason });
      return changed.changes > 0;
    },
    latestAttempts() {
      return options.channels.flatMap((channel) => {
        const row = s().latestAttempt.get(channel) as
          | { at: number; state: string; reason: string | null }
          | undefined;
        return row ? [{ channel, at: row.at, sent: row.state === 'sent', reason: row.reason }] : [];
      });
    },
    history(issueId, limit) {
      return (
        s().history.all(issueId, limit) as Array<{
          kind: AlertKind;
          raised_at: number;
          channel: string;
          state: AlertHistoryEntry['state'];
          attempts: number;
          reason: string | null;
        }>
      ).map((row) => ({
        kind: row.kind,
        raisedAt: row.raised_at,
        channel: row.channel,
        state: row.state,
        attempts: row.attempts,
        reason: row.reason,
      }));
    },
    prune(now) {
      return db
        .transaction(
          () =>
            s().pruneOld.run(now - PRUNE_AFTER_MS).changes +
            s().pruneBeyondCap.run(MAX_KEPT_ALERTS).changes,
        )
        .immediate();
    },
  };
}

const NOT_PENDING = `NOT EXISTS (SELECT 1 FROM alert_deliveries d
  WHERE d.alert_id = alerts.id AND d.state = 'pending')`;

function prepare(db: Database.Database) {
  return {
    issue: db.prepare(
      `SELECT id, title, culprit, level, event_count, user_count, first_seen, last_seen
       FROM issues WHERE id = ?`,
    ),
    latestIssue: db.prepare('SELECT id FROM issues ORDER BY last_seen DESC, id DESC LIMIT 1'),
    insertAlert: db.prepare(
      `INSERT INTO alerts (kind, issue_id, raised_at, due_at, body, alone)
       VALUES (@kind, @issue, @at, @due, @body, @alone)`,
    ),
    insertDelivery: db.prepare(
      `INSERT INTO alert_deliveries (alert_id, channel, state, not_before) VALUES (?, ?, 'pending', ?)`,
    ),
    recentAlone: db.prepare(
      `SELECT raised_at FROM alerts WHERE alone = 1 AND raised_at > ?
       ORDER BY raised_at DESC LIMIT ${FLOOD_LIMIT}`,
    ),
    // A summary not yet due is not yet claimed: it still gathers.
    openSummary: db.prepare(
      `SELECT id, body FROM alerts WHERE kind = 'summary' AND due_at > ? ORDER BY id DESC LIMIT 1`,
    ),
    updateBody: db.prepare('UPDATE alerts SET body = ? WHERE id = ?'),
    spikeOf: db.prepare('SELECT window_start, count, alerted FROM alert_spikes WHERE issue_id = ?'),
    saveSpike: db.prepare(
      `INSERT INTO alert_spikes (issue_id, window_start, count, alerted)
       VALUES (@issue, @start, @count, @alerted)
       ON CONFLICT (issue_id) DO UPDATE SET window_start = excluded.window_start,
         count = excluded.count, alerted = excluded.alerted`,
    ),
    nextDue: db.prepare(
      `SELECT min(max(not_before, claimed_until)) AS due FROM alert_deliveries WHERE state = 'pending'`,
    ),
    claim: db.prepare(
      `UPDATE alert_deliveries SET claimed_until = @until, attempts = attempts + 1
       WHERE id IN (
         SELECT id FROM alert_deliveries
         WHERE state = 'pending' AND not_before <= @now AND claimed_until <= @now
         ORDER BY not_before, id LIMIT @limit)
       RETURNING id, channel, attempts,
         (SELECT raised_at FROM alerts WHERE alerts.id = alert_id) AS raised_at,
         (SELECT body FROM alerts WHERE alerts.id = alert_id) AS body`,
    ),
    settleSent: db.prepare(
      `UPDATE alert_deliveries SET state = 'sent', reason = NULL, done_at = @now,
         last_attempt_at = @now, claimed_until = 0
       WHERE id = @id AND claimed_until = @until`,
    ),
    settleRetry: db.prepare(
      `UPDATE alert_deliveries SET not_before = @notBefore, reason = @reason,
         last_attempt_at = @now, claimed_until = 0
       WHERE id = @id AND claimed_until = @until`,
    ),
    settleFailed: db.prepare(
      `UPDATE alert_deliveries SET state = 'failed', reason = @reason, done_at = @now,
         last_attempt_at = @now, claimed_until = 0
       WHERE id = @id AND claimed_until = @until`,
    ),
    latestAttempt: db.prepare(
      `SELECT last_attempt_at AS at, state, reason FROM alert_deliveries
       WHERE channel = ? AND last_attempt_at IS NOT NULL
       ORDER BY last_attempt_at DESC, id DESC LIMIT 1`,
    ),
    history: db.prepare(
      `SELECT a.kind, a.raised_at, d.channel, d.state, d.attempts, d.reason
       FROM alerts a JOIN alert_deliveries d ON d.alert_id = a.id
       WHERE a.issue_id = ? ORDER BY a.id DESC, d.channel LIMIT ?`,
    ),
    pruneOld: db.prepare(`DELETE FROM alerts WHERE raised_at < ? AND ${NOT_PENDING}`),
    pruneBeyondCap: db.prepare(
      `DELETE FROM alerts WHERE id <= (SELECT id FROM alerts ORDER BY id DESC LIMIT 1 OFFSET ?)
       AND ${NOT_PENDING}`,
    ),
  };
}
