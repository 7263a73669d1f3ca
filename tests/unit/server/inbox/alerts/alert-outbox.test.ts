/**
 * The alert outbox on a real SQLite file: alerts raised in the ingest's transaction (one per
 * trigger, a row per channel), the flood limit's summary, claims with a lease, and what a
 * clear leaves behind.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertOutboxOptions } from '#app/server/inbox/alerts/alert-outbox.server';
import { CLAIM_LEASE_MS } from '#app/server/inbox/alerts/alert-outbox.server';
import { FLOOD_LIMIT } from '#app/server/inbox/alerts/alert-policy';
import {
  type InboxDatabase,
  openInboxDatabase,
} from '#app/server/inbox/store/inbox-database.server';
import { seededEvent } from '#tests/support/seed-inbox';

const T = 1_800_000_000_000;
const CHANNELS = ['webhook a.example', 'webhook b.example'];
const opened: InboxDatabase[] = [];

function inbox(alerts: AlertOutboxOptions = { channels: CHANNELS }) {
  const path = join(mkdtempSync(join(tmpdir(), 'alerts-')), 'inbox.sqlite');
  const db = openInboxDatabase(path, { maxEvents: 1000, alerts });
  opened.push(db);
  return { db, path };
}

afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

function rows(path: string, sql: string): unknown[] {
  const raw = new Database(path, { readonly: true });
  try {
    return raw.prepare(sql).all();
  } finally {
    raw.close();
  }
}

/** The one element of a list (a test fails when there is not exactly one). */
function only<T>(items: readonly T[]): T {
  expect(items).toHaveLength(1);
  return items[0] as T;
}

const event = (type: string, at = T) => seededEvent({ type, message: 'boom', at });

describe('raising alerts in the ingest', () => {
  it('a new issue raises one alert, a delivery per channel; repeats raise nothing', () => {
    const { db, path } = inbox();
    db.ingest([event('TypeError')], T);
    for (let n = 1; n <= 20; n++) db.ingest([event('TypeError', T + n)], T + n);
    expect(rows(path, 'SELECT kind, issue_id FROM alerts')).toEqual([{ kind: 'new', issue_id: 1 }]);
    expect(rows(path, 'SELECT channel, state FROM alert_deliveries ORDER BY channel')).toEqual([
      { channel: 'webhook a.example', state: 'pending' },
      { channel: 'webhook b.example', state: 'pending' },
    ]);
  });

  it('an envelope stored twice (a client retrying) raises its alert once', () => {
    const { db, path } = inbox();
    const same = event('TypeError');
    db.ingest([same], T);
    db.ingest([same], T + 1);
    expect(rows(path, 'SELECT count(*) AS n FROM alerts')).toEqual([{ n: 1 }]);
  });

  it('a resolved issue seen again raises a regression', () => {
    const { db, path } = inbox();
    db.ingest([event('TypeError')], T);
    db.triage({ kind: 'ids', ids: [1] }, { kind: 'resolve' }, T + 5);
    db.ingest([event('TypeError', T + 10)], T + 10);
    db.ingest([event('TypeError', T + 20)], T + 20);
    expect(rows(path, 'SELECT kind FROM alerts ORDER BY id')).toEqual([
      { kind: 'new' },
      { kind: 'regressed' },
    ]);
  });

  it('without a channel nothing is raised', () => {
    const { db, path } = inbox({ channels: [] });
    db.ingest([event('TypeError')], T);
    expect(rows(path, 'SELECT count(*) AS n FROM alerts')).toEqual([{ n: 0 }]);
  });

  it('a spike alerts once per issue and window', () => {
    const { db, path } = inbox({
      channels: CHANNELS,
      spike: { count: 5, windowMs: 3_600_000, text: '5/1h' },
    });
    const hour = Math.floor(T / 3_600_000) * 3_600_000;
    for (let n = 0; n < 12; n++) db.ingest([event('TypeError', hour + n)], hour + n);
    expect(rows(path, 'SELECT kind FROM alerts ORDER BY id')).toEqual([
      { kind: 'new' },
      { kind: 'spike' },
    ]);
    const spike = rows(path, "SELECT body FROM alerts WHERE kind = 'spike'")[0] as { body: string };
    expect(JSON.parse(spike.body)).toMatchObject({ kind: 'spike', spike: '5/1h' });
  });
});

describe('the flood limit', () => {
  it('twenty new issues in a minute: FLOOD_LIMIT alerts, then one summary of the rest', () => {
    const { db, path } = inbox();
    for (let n = 0; n < 20; n++) db.ingest([event(`Error${n}`, T + n * 100)], T + n * 100);
    expect(rows(path, "SELECT count(*) AS n FROM alerts WHERE kind = 'new'")).toEqual([
      { n: FLOOD_LIMIT },
    ]);
    const summaries = rows(
      path,
      "SELECT body, due_at FROM alerts WHERE kind = 'summary'",
    ) as Array<{
      body: string;
      due_at: number;
    }>;
    expect(summaries).toHaveLength(1);
    const summary = JSON.parse(summaries[0]?.body ?? '{}');
    expect(summary.summary.count).toBe(20 - FLOOD_LIMIT);
    expect(summary.summary.titles[0]).toBe('Error5: boom');
    // Due once the minute frees a place: the sender leaves it until then.
    expect(summaries[0]?.due_at).toBe(T + 60_000);
    expect(db.alerts.claim(T + 59_999, 100).map((claimed) => claimed.alert.kind)).not.toContain(
      'summary',
    );
    expect(db.alerts.claim(T + 60_000, 100).map((claimed) => claimed.alert.kind)).toEqual([
      'summary',
      'summary',
    ]);
  });
});

describe('claims', () => {
  it('a claimed row is not claimed again until its lease ends', () => {
    const { db } = inbox();
    db.ingest([event('TypeError')], T);
    const first = db.alerts.claim(T, 10);
    expect(first.map((claimed) => claimed.channel).sort()).toEqual(CHANNELS);
    expect(db.alerts.claim(T + 1, 10)).toEqual([]);
    // A sender that crashed holding them: another takes them once the lease ends.
    const again = db.alerts.claim(T + CLAIM_LEASE_MS, 10);
    expect(again).toHaveLength(2);
    expect(again[0]?.attempts).toBe(2);
    // The first holder can no longer settle what it lost.
    expect(
      db.alerts.settle(only(first.slice(0, 1)), { state: 'sent' }, T + CLAIM_LEASE_MS + 1),
    ).toBe(false);
    expect(
      db.alerts.settle(only(again.slice(0, 1)), { state: 'sent' }, T + CLAIM_LEASE_MS + 1),
    ).toBe(true);
  });

  it('two connections claiming at once never get the same row', () => {
    const { db, path } = inbox();
    for (let n = 0; n < 5; n++) db.ingest([event(`E${n}`, T + n)], T + n);
    const other = openInboxDatabase(path, { maxEvents: 1000, alerts: { channels: CHANNELS } });
    opened.push(other);
    const ids: number[] = [];
    for (let turn = 0; turn < 10; turn++) {
      const from = turn % 2 === 0 ? db : other;
      ids.push(...from.alerts.claim(T + 10, 1).map((claimed) => claimed.id));
    }
    expect(ids).toHaveLength(10);
    expect(new Set(ids).size).toBe(10);
  });

  it('a retry waits for its back-off, and the latest attempt says the channel is failing', () => {
    const { db } = inbox({ channels: ['webhook a.example'] });
    db.ingest([event('TypeError')], T);
    const claimed = only(db.alerts.claim(T, 10));
    db.alerts.settle(claimed, { state: 'pending', notBefore: T + 2000, reason: 'answered 503' }, T);
    expect(db.alerts.nextDue()).toBe(T + 2000);
    expect(db.alerts.claim(T + 1999, 10)).toEqual([]);
    expect(db.alerts.latestAttempts()).toEqual([
      { channel: 'webhook a.example', at: T, sent: false, reason: 'answered 503' },
    ]);
    expect(db.alerts.history(1, 10)).toEqual([
      {
        kind: 'new',
        raisedAt: T,
        channel: 'webhook a.example',
        state: 'pending',
        attempts: 1,
        reason: 'answered 503',
      },
    ]);
  });
});

describe('bounds', () => {
  it("a clear deletes the issues' alerts and deliveries with them", () => {
    const { db, path } = inbox();
    db.ingest([event('TypeError'), event('RangeError')], T);
    db.alerts.raiseTest(T);
    db.requestClear(T);
    while (!db.clearStep(T)?.done) {
      // one batch per step
    }
    // The test alert named the latest issue: it goes with it too.
    expect(rows(path, 'SELECT kind, issue_id FROM alerts')).toEqual([]);
    expect(rows(path, 'SELECT count(*) AS n FROM alert_deliveries')).toEqual([{ n: 0 }]);
  });

  it('sent alerts are pruned after a week, pending ones are kept', () => {
    const { db, path } = inbox({ channels: ['webhook a.example'] });
    db.ingest([event('TypeError'), event('RangeError')], T);
    const first = only(db.alerts.claim(T, 1));
    db.alerts.settle(first, { state: 'sent' }, T);
    expect(db.alerts.prune(T + 8 * 24 * 3_600_000)).toBe(1);
    expect(rows(path, 'SELECT state FROM alert_deliveries')).toEqual([{ state: 'pending' }]);
  });
});
