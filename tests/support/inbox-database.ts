/**
 * What the inbox database holds, read from its file beside a running server (read-only, as a
 * second reader: WAL lets it see every committed write). Empty when nothing was ever stored.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export interface StoredInbox {
  issues: Array<{ id: number; title: string; count: number; status: string }>;
  events: Array<{ eventId: string; issueId: number; event: Record<string, unknown> }>;
  items: Record<string, number>;
}

export function readInbox(dir: string): StoredInbox {
  const path = join(dir, 'inbox.sqlite');
  if (!existsSync(path)) return { issues: [], events: [], items: {} };
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return {
      issues: db
        .prepare('SELECT id, title, event_count AS count, status FROM issues ORDER BY id')
        .all() as StoredInbox['issues'],
      events: (
        db.prepare('SELECT event_id, issue_id, payload FROM events ORDER BY id').all() as Array<{
          event_id: string;
          issue_id: number;
          payload: string;
        }>
      ).map((row) => ({
        eventId: row.event_id,
        issueId: row.issue_id,
        event: JSON.parse(row.payload),
      })),
      items: Object.fromEntries(
        (
          db.prepare('SELECT type, count FROM item_counts').all() as Array<{
            type: string;
            count: number;
          }>
        ).map((row) => [row.type, row.count]),
      ),
    };
  } finally {
    db.close();
  }
}

/** An event's tag, whether the event keeps tags as an object or as Sentry's [key, value] pairs. */
export function tagOf(event: Record<string, unknown>, key: string): unknown {
  const tags = event.tags;
  if (Array.isArray(tags)) return tags.find((pair) => Array.isArray(pair) && pair[0] === key)?.[1];
  return typeof tags === 'object' && tags !== null
    ? (tags as Record<string, unknown>)[key]
    : undefined;
}

/** Release health as stored: sessions started and unhandled, summed over releases. */
export function storedSessions(dir: string): { started: number; unhandled: number } {
  const path = join(dir, 'inbox.sqlite');
  if (!existsSync(path)) return { started: 0, unhandled: 0 };
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(
        'SELECT coalesce(sum(sessions), 0) AS started, coalesce(sum(unhandled), 0) AS unhandled FROM release_health',
      )
      .get() as { started: number; unhandled: number };
    return row;
  } finally {
    db.close();
  }
}
