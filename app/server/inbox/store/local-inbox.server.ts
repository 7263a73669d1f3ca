/**
 * The process's local inbox: the database at `<MONITORING_INBOX_DIR>/inbox.sqlite`, opened once
 * (process-shared.server.ts), for the pages (reads, status changes, clear) on this thread. New
 * reports reach it through the ingest path (./ingest.server.ts), off this thread.
 *
 * A store that cannot be opened is loud, not empty: `problem()` says why, the start line and
 * /health say so, /errors shows it, and every write fails with that reason.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { serverConfig } from '#app/server/env.server';
import { healthSignals } from '#app/server/health/health-signals.server';
import { processShared } from '#app/server/process-shared.server';
import { type InboxDatabase, openInboxDatabase } from './inbox-database.server';

/** Raw events kept in all, by default (counts are kept regardless): MONITORING_INBOX_MAX_EVENTS. */
export const DEFAULT_MAX_EVENTS = 10_000;
export const DATABASE_FILE = 'inbox.sqlite';

export interface LocalInbox {
  /** The inbox's directory, absolute. */
  readonly dir: string;
  /** Why the inbox cannot be used, in words for an operator; undefined while it works. */
  problem(): string | undefined;
  /** The database; throws with `problem()` when it could not be opened. */
  db(): InboxDatabase;
}

export class InboxUnavailableError extends Error {
  override name = 'InboxUnavailableError';
}

export function localInbox(): LocalInbox {
  const { monitoring, inboxMaxEvents } = serverConfig();
  if (monitoring.kind !== 'local-inbox') {
    throw new Error('The local inbox is only used when SENTRY_DSN is not set');
  }
  const dir = resolve(monitoring.inboxDir);
  return processShared(`local-inbox:${dir}`, () => openLocalInbox(dir, inboxMaxEvents));
}

export function openLocalInbox(dir: string, maxEvents: number = DEFAULT_MAX_EVENTS): LocalInbox {
  let database: InboxDatabase | undefined;
  let problem: string | undefined;
  try {
    mkdirSync(dir, { recursive: true });
    database = openInboxDatabase(join(dir, DATABASE_FILE), { maxEvents });
  } catch (error) {
    problem = `the inbox database in ${dir} cannot be opened: ${reasonOf(error)}`;
    healthSignals().note(
      'reports-not-stored',
      `the inbox database cannot be opened (${codeOf(error)})`,
    );
  }
  return {
    dir,
    problem: () => problem,
    db() {
      if (!database) throw new InboxUnavailableError(problem);
      return database;
    },
  };
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function codeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : reasonOf(error);
}
