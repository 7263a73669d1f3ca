/**
 * Tests of inbox-sessions: the signed-in sessions kept in the inbox's database.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type InboxSessions,
  MAX_SESSIONS,
  openInboxSessions,
  SESSION_IDLE_MS,
  SESSION_MAX_AGE_MS,
} from '#app/server/inbox/inbox-sessions.server';
import { openInboxDatabase } from '#app/server/inbox/store/inbox-database.server';

const HOUR = 60 * 60 * 1000;
const opened: InboxSessions[] = [];

afterEach(() => {
  for (const sessions of opened.splice(0)) sessions.close();
});

/** A new inbox database, its schema made as the server makes it. */
function newDatabase(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'sessions-')), 'inbox.sqlite');
  openInboxDatabase(path, { maxEvents: 100 }).close();
  return path;
}

/** A store on a clock the test moves; `path` shares another store's database. */
function sessionsAt(start = 0, maxSessions = MAX_SESSIONS, path = newDatabase()) {
  const clock = { now: start };
  const sessions = openInboxSessions(path, {
    idleMs: SESSION_IDLE_MS,
    maxAgeMs: SESSION_MAX_AGE_MS,
    maxSessions,
    now: () => clock.now,
  });
  opened.push(sessions);
  return {
    sessions,
    path,
    advance(ms: number) {
      clock.now += ms;
    },
  };
}

describe('inbox sessions', () => {
  it('makes a new random 32-byte id each time', () => {
    const { sessions } = sessionsAt();
    const ids = new Set(Array.from({ length: 50 }, () => sessions.create()));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{64}$/);
  });

  it('knows its own ids only', () => {
    const { sessions } = sessionsAt();
    const id = sessions.create();
    expect(sessions.touch(id)).toBe(true);
    expect(sessions.touch('0'.repeat(64))).toBe(false);
    expect(sessions.touch(id.toUpperCase())).toBe(false);
    expect(sessions.touch(`${id} `)).toBe(false);
    expect(sessions.touch('')).toBe(false);
  });

  it('ends after 12 hours without a visit', () => {
    const { sessions, advance } = sessionsAt();
    const id = sessions.create();
    advance(12 * HOUR - 1);
    expect(sessions.touch(id)).toBe(true);
    advance(12 * HOUR - 1);
    expect(sessions.touch(id)).toBe(true);
    advance(12 * HOUR);
    expect(sessions.touch(id)).toBe(false);
    // Gone for good, not only refused.
    expect(sessions.size()).toBe(0);
  });

  it('ends 7 days after signing in, however often it is used', () => {
    const { sessions, advance } = sessionsAt(1_000_000);
    const id = sessions.create();
    for (let hours = 0; hours < 7 * 24 - 1; hours++) {
      advance(HOUR);
      expect(sessions.touch(id)).toBe(true);
    }
    advance(HOUR);
    expect(sessions.touch(id)).toBe(false);
  });

  it('ends on sign-out, that session only', () => {
    const { sessions } = sessionsAt();
    const mine = sessions.create();
    const theirs = sessions.create();
    sessions.end(mine);
    expect(sessions.touch(mine)).toBe(false);
    expect(sessions.touch(theirs)).toBe(true);
    sessions.end('not an id');
    expect(sessions.size()).toBe(1);
  });

  it('keeps at most maxSessions, dropping the one unused longest', () => {
    const { sessions, advance } = sessionsAt(0, 3);
    const [a, b, c] = [sessions.create(), sessions.create(), sessions.create()] as const;
    // A visit is written down to the minute.
    advance(HOUR);
    expect(sessions.touch(a)).toBe(true);
    const d = sessions.create();
    expect(sessions.size()).toBe(3);
    expect(sessions.touch(b)).toBe(false);
    expect([a, c, d].map((id) => sessions.touch(id))).toEqual([true, true, true]);
  });

  it('is the same session on every worker: one database, several stores', () => {
    const first = sessionsAt();
    const second = sessionsAt(0, MAX_SESSIONS, first.path);
    const id = first.sessions.create();
    expect(second.sessions.touch(id)).toBe(true);
    second.sessions.end(id);
    expect(first.sessions.touch(id)).toBe(false);
  });

  it('ends every session when the server starts again', () => {
    const { sessions, path } = sessionsAt();
    const id = sessions.create();
    sessions.endAll();
    expect(sessions.touch(id)).toBe(false);
    // Kept on disk otherwise: a store opened again (a worker started again) still knows it.
    const kept = sessions.create();
    sessions.close();
    opened.splice(opened.indexOf(sessions), 1);
    expect(sessionsAt(0, MAX_SESSIONS, path).sessions.touch(kept)).toBe(true);
  });
});
