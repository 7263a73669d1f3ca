/**
 * Signed-in inbox sessions: a random id in the visitor's cookie, what it is worth kept in the
 * inbox's database, so that every worker of the server knows it (decisions 0306, 0314).
 * Sign-out and expiry end a session on the server, whatever the browser keeps; a server start
 * ends them all (`endAll`), a worker's restart does not.
 *
 * State that other modules read, so a leaf: it imports nothing of the app. The process's one
 * store is the local inbox's (./store/local-inbox.server.ts); the access policy that asks it
 * is ./inbox-access.server.ts. The clock and the id source are passed in, so expiry is tested
 * without waiting.
 *
 * Not h3's useSession (sealed cookies): ending sessions, idle expiry and the bound need this
 * table anyway, so sealing would only wrap an unguessable id in a password every worker must
 * share, and h3 1.15's getSession sets a cookie on every request that has none. h3 writes and
 * reads the cookie itself (setCookie, getCookie in ./inbox.functions.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';

/** 12 hours without a visit ends a session: a working day, not an unattended week. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** 7 days after signing in a session ends, however busy: a lost laptop's cookie expires. */
export const SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Only token holders make sessions: a thousand is far more than a team, and a bound. */
export const MAX_SESSIONS = 1_000;
/**
 * A visit is written down at most this often per session: idle time is counted to the minute,
 * and browsing the inbox does not write to the disk on every page.
 */
export const SESSION_TOUCH_PRECISION_MS = 60_000;

export interface InboxSessionsOptions {
  idleMs: number;
  maxAgeMs: number;
  maxSessions: number;
  now?: () => number;
  /** A new session id; 32 random bytes, hex, by default. */
  newId?: () => string;
}

export interface InboxSessions {
  /** Starts a session and returns its id, for the cookie. */
  create(): string;
  /** Whether `id` names a live session; a visit starts its idle time again. */
  touch(id: string): boolean;
  /** Ends the session `id` names, if any. */
  end(id: string): void;
  /** Ends every session: the server starts (a token made for the last run is no longer valid). */
  endAll(): void;
  /** Sessions kept, live or not yet noticed to have expired. */
  size(): number;
  close(): void;
}

interface SessionRow {
  created_at: number;
  last_seen_at: number;
}

/** What a session id looks like: anything else is not looked up. */
const SESSION_ID = /^[0-9a-f]{64}$/;

/** Sessions in the inbox database at `databasePath`, which its migrations have made. */
export function openInboxSessions(
  databasePath: string,
  options: InboxSessionsOptions,
): InboxSessions {
  const { idleMs, maxAgeMs, maxSessions } = options;
  const now = options.now ?? Date.now;
  const newId = options.newId ?? (() => randomBytes(32).toString('hex'));
  const db = new Database(databasePath, { fileMustExist: true });
  // Another worker, or this one's ingest thread, may hold the write lock for a moment.
  db.pragma('busy_timeout = 5000');
  // A session lost to a power cut means signing in again: no fsync on this thread for it.
  db.pragma('synchronous = NORMAL');

  const find = db.prepare('SELECT created_at, last_seen_at FROM inbox_sessions WHERE digest = ?');
  const insert = db.prepare(
    'INSERT INTO inbox_sessions (digest, created_at, last_seen_at) VALUES (?, ?, ?)',
  );
  const seen = db.prepare('UPDATE inbox_sessions SET last_seen_at = ? WHERE digest = ?');
  const remove = db.prepare('DELETE FROM inbox_sessions WHERE digest = ?');
  const removeExpired = db.prepare(
    'DELETE FROM inbox_sessions WHERE last_seen_at <= ? OR created_at <= ?',
  );
  const count = db.prepare('SELECT count(*) AS n FROM inbox_sessions').pluck();
  // Least recently used first; of those used in the same minute, the first made.
  const removeLeastRecent = db.prepare(
    `DELETE FROM inbox_sessions WHERE rowid IN
       (SELECT rowid FROM inbox_sessions ORDER BY last_seen_at, rowid LIMIT ?)`,
  );
  const removeAll = db.prepare('DELETE FROM inbox_sessions');

  const live = (session: SessionRow, at: number) =>
    at - session.last_seen_at < idleMs && at - session.created_at < maxAgeMs;

  const create = db.transaction((digestOfId: string, at: number) => {
    removeExpired.run(at - idleMs, at - maxAgeMs);
    const excess = (count.get() as number) - maxSessions + 1;
    if (excess > 0) removeLeastRecent.run(excess);
    insert.run(digestOfId, at, at);
  });

  return {
    create() {
      const id = newId();
      create.immediate(digest(id), now());
      return id;
    },
    touch(id) {
      if (!SESSION_ID.test(id)) return false;
      const key = digest(id);
      const session = find.get(key) as SessionRow | undefined;
      if (!session) return false;
      const at = now();
      if (!live(session, at)) {
        remove.run(key);
        return false;
      }
      if (at - session.last_seen_at >= SESSION_TOUCH_PRECISION_MS) seen.run(at, key);
      return true;
    },
    end(id) {
      if (SESSION_ID.test(id)) remove.run(digest(id));
    },
    endAll() {
      removeAll.run();
    },
    size: () => count.get() as number,
    close() {
      db.close();
    },
  };
}

/**
 * The id's SHA-256: the table compares digests, so how long a lookup takes says nothing about a
 * live id, and the ids themselves are not kept (a copy of the database signs no one in).
 */
function digest(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}
