/**
 * Signed-in inbox sessions: a random id in the visitor's cookie, what it is worth kept here, in
 * memory. Sign-out and expiry end a session on the server, whatever the browser keeps; a restart
 * ends them all (docs/decisions/0306-inbox-sign-in-by-default.md).
 *
 * Pure state with the clock and the id source passed in, so expiry is tested without waiting.
 * The process's one store is in ./inbox-access.server.ts.
 */
import { createHash, randomBytes } from 'node:crypto';

/** 12 hours without a visit ends a session: a working day, not an unattended week. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** 7 days after signing in a session ends, however busy: a lost laptop's cookie expires. */
export const SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Only token holders make sessions: a thousand is far more than a team, and a bound. */
export const MAX_SESSIONS = 1_000;

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
  /** Sessions kept, live or not yet noticed to have expired. */
  size(): number;
}

interface Session {
  createdAt: number;
  lastSeenAt: number;
}

/** What a session id looks like: anything else is not looked up. */
const SESSION_ID = /^[0-9a-f]{64}$/;

export function createInboxSessions(options: InboxSessionsOptions): InboxSessions {
  const { idleMs, maxAgeMs, maxSessions } = options;
  const now = options.now ?? Date.now;
  const newId = options.newId ?? (() => randomBytes(32).toString('hex'));
  // Keyed by the id's SHA-256, never the id: the map compares digests, so how long a lookup
  // takes says nothing about a live id, and the ids themselves are not kept. In order of last
  // use (a visit moves a session to the end), so the first one is the one to drop.
  const sessions = new Map<string, Session>();

  const live = (session: Session, at: number) =>
    at - session.lastSeenAt < idleMs && at - session.createdAt < maxAgeMs;

  return {
    create() {
      const at = now();
      while (sessions.size >= maxSessions) {
        const oldest = sessions.keys().next().value as string;
        sessions.delete(oldest);
      }
      const id = newId();
      sessions.set(digest(id), { createdAt: at, lastSeenAt: at });
      return id;
    },
    touch(id) {
      if (!SESSION_ID.test(id)) return false;
      const key = digest(id);
      const session = sessions.get(key);
      if (!session) return false;
      const at = now();
      sessions.delete(key);
      if (!live(session, at)) return false;
      session.lastSeenAt = at;
      sessions.set(key, session);
      return true;
    },
    end(id) {
      if (SESSION_ID.test(id)) sessions.delete(digest(id));
    },
    size: () => sessions.size,
  };
}

function digest(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}
