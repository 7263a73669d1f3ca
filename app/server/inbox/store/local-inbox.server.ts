/**
 * The process's local inbox: the database at `<MONITORING_INBOX_DIR>/inbox.sqlite`, opened once
 * (process-shared.server.ts). The pages read it on this thread; new reports reach it through
 * the ingest thread (./ingest-thread.server.ts), which validates, groups and stores them.
 *
 * A store that cannot be used is loud, not empty: `problem()` says why, the start line and
 * /health say so, /errors shows it, and every report fails with that reason.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { thisWorker } from '#app/server/cluster/worker-link.server';
import { type ServerConfig, serverConfig } from '#app/server/env.server';
import type { Trouble } from '#app/server/health/health.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { processShared } from '#app/start-1.120/process-shared.server';
import { alertOutboxOptionsOf, alertSettingsOf } from '../alerts/alert-policy';
import {
  type InboxSessions,
  MAX_SESSIONS,
  openInboxSessions,
  SESSION_IDLE_MS,
  SESSION_MAX_AGE_MS,
} from '../inbox-sessions.server';
import { buildOutputOf } from '../source-maps/map-store.server';
import {
  type InboxDatabase,
  type InboxDatabaseOptions,
  openInboxDatabase,
} from './inbox-database.server';
import {
  type AlertThreadSettings,
  IngestError,
  type IngestNotice,
  ingestErrorCode,
} from './ingest-protocol';
import { createIngestThread, type IngestThread } from './ingest-thread.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'local-inboxes': Map<string, LocalInbox>;
    'inbox-trouble-link': {
      sink: InboxTroubleSink | undefined;
      waiting: Map<InboxTrouble, string>;
    };
  }
}

export const DATABASE_FILE = 'inbox.sqlite';
/** The file store's envelopes (before the database): `<ms, 15 digits>-<seq>-<random>.envelope`. */
const LEGACY_ENVELOPE = /^(\d{15})-[0-9a-z]{6}-[0-9a-f]{8}\.envelope$/;

export interface LocalInbox {
  /** The inbox's directory, absolute. */
  readonly dir: string;
  /** Why the inbox cannot be used, in words for an operator; undefined while it works. */
  problem(): string | undefined;
  /** The database; throws with `problem()` when it could not be opened. */
  db(): InboxDatabase;
  /** The thread that stores new reports. */
  ingestThread(): IngestThread;
  /** The signed-in sessions, kept in the database; throws with `problem()` when it is unusable. */
  sessions(): InboxSessions;
}

export class InboxUnavailableError extends Error {
  override name = 'InboxUnavailableError';
}

export function localInbox(): LocalInbox {
  const config = serverConfig();
  const { monitoring, inboxMaxEvents, inboxMaxMb } = config;
  if (monitoring.kind !== 'local-inbox') {
    throw new Error('The local inbox is only used when SENTRY_DSN is not set');
  }
  const dir = resolve(monitoring.inboxDir);
  const inboxes = processShared('local-inboxes', () => new Map<string, LocalInbox>());
  let inbox = inboxes.get(dir);
  if (!inbox) {
    inbox = openLocalInbox(
      dir,
      { maxEvents: inboxMaxEvents, maxMb: inboxMaxMb },
      alertSettingsOf(config),
    );
    inboxes.set(dir, inbox);
  }
  return inbox;
}

export interface InboxLimits {
  /** MONITORING_INBOX_MAX_EVENTS. */
  maxEvents: number;
  /** MONITORING_INBOX_MAX_MB. */
  maxMb: number;
}

export function openLocalInbox(
  dir: string,
  limits: InboxLimits,
  alerts?: AlertThreadSettings,
): LocalInbox {
  const databasePath = join(dir, DATABASE_FILE);
  // The pages raise test alerts and read the history: they need the channels' names.
  const opened = openDatabaseIn(dir, {
    ...limits,
    ...(alerts ? { alerts: alertOutboxOptionsOf(alerts) } : {}),
  });
  const database = 'database' in opened ? opened.database : undefined;
  const problem = 'problem' in opened ? opened.problem : undefined;
  if ('error' in opened) {
    troubles.note(
      'reports-not-stored',
      `the inbox database cannot be opened (${codeOf(opened.error)})`,
    );
  }
  let thread: IngestThread | undefined;
  let sessions: InboxSessions | undefined;
  const inbox: LocalInbox = {
    dir,
    problem: () => problem,
    db() {
      if (!database) throw new InboxUnavailableError(problem);
      return database;
    },
    ingestThread() {
      if (!thread) {
        // Where the build's maps are, for grouping: worked out once, when the thread starts,
        // not for every report.
        const buildOutput = buildOutputOf(import.meta.url);
        thread = createIngestThread({
          databasePath,
          ...limits,
          onNotice: (notice) => onIngestNotice(notice, limits.maxMb),
          ...(buildOutput ? { buildOutput } : {}),
          ...(alerts ? { alerts } : {}),
        });
      }
      return thread;
    },
    sessions() {
      if (!database) throw new InboxUnavailableError(problem);
      sessions ??= openInboxSessions(databasePath, sessionLimits());
      return sessions;
    },
  };
  // Once per server, not once per worker: the first worker imports (and the one started again
  // in its place goes on where it stopped).
  const worker = thisWorker();
  if (database && (worker === undefined || worker === 1)) importLegacyEnvelopes(inbox);
  return inbox;
}

/**
 * What the server does with its inbox once, at start, before any worker serves (the primary,
 * or the one process): the schema is brought up to date and the last run's sessions end (a
 * token made for that run is gone with it). Says why the inbox cannot be used, if it cannot.
 */
export function prepareInboxAtStart(config: ServerConfig): string | undefined {
  if (config.monitoring.kind !== 'local-inbox') return undefined;
  const dir = resolve(config.monitoring.inboxDir);
  const opened = openDatabaseIn(dir, {
    maxEvents: config.inboxMaxEvents,
    maxMb: config.inboxMaxMb,
  });
  if ('problem' in opened) return opened.problem;
  try {
    const sessions = openInboxSessions(join(dir, DATABASE_FILE), sessionLimits());
    sessions.endAll();
    sessions.close();
    return undefined;
  } catch (error) {
    return `the inbox database ${join(dir, DATABASE_FILE)} cannot be used: ${messageOf(error)}`;
  } finally {
    opened.database.close();
  }
}

/** Sessions as the inbox keeps them (./inbox-sessions.server.ts's bounds). */
const sessionLimits = () => ({
  idleMs: SESSION_IDLE_MS,
  maxAgeMs: SESSION_MAX_AGE_MS,
  maxSessions: MAX_SESSIONS,
});

/** The troubles the inbox notes for /health, in /health's names. */
export type InboxTrouble = Extract<
  Trouble,
  'reports-not-stored' | 'inbox-at-cap' | 'alerts-failing'
>;

/** Where the inbox's troubles go: /health's signals, which the server's start links. */
export interface InboxTroubleSink {
  note(trouble: InboxTrouble, detail: string): void;
  clear(trouble: InboxTrouble): void;
}

/**
 * The process's link from the inbox to /health, kept here so that the inbox imports nothing of
 * health (which reads the admission and, through it, this module). Troubles noted before the
 * server links it are kept, the last of each, and handed over when it does.
 */
const troubleLink = processShared('inbox-trouble-link', () => ({
  sink: undefined,
  waiting: new Map(),
}));

/** Sends the inbox's troubles to `sink` from now on (the server's start: /health's signals). */
export function reportInboxTroublesTo(sink: InboxTroubleSink): void {
  troubleLink.sink = sink;
  for (const [trouble, detail] of troubleLink.waiting) sink.note(trouble, detail);
  troubleLink.waiting.clear();
}

const troubles: InboxTroubleSink = {
  note(trouble, detail) {
    if (troubleLink.sink) troubleLink.sink.note(trouble, detail);
    else troubleLink.waiting.set(trouble, detail);
  },
  clear(trouble) {
    if (troubleLink.sink) troubleLink.sink.clear(trouble);
    else troubleLink.waiting.delete(trouble);
  },
};

function openDatabaseIn(
  dir: string,
  limits: InboxLimits & Pick<InboxDatabaseOptions, 'alerts'>,
): { database: InboxDatabase } | { problem: string; error: unknown } {
  const databasePath = join(dir, DATABASE_FILE);
  try {
    makeDirectory(dir);
    return { database: openInboxDatabase(databasePath, limits) };
  } catch (error) {
    return {
      problem: `the inbox database ${databasePath} cannot be opened: ${messageOf(error)}`,
      error,
    };
  }
}

/** What the ingest thread tells besides its answers, for /health and the log. */
function onIngestNotice(notice: IngestNotice, maxMb: number): void {
  if (notice.kind === 'evicted') noteEviction(notice.issues, maxMb);
  else if (notice.kind === 'alert-log') warnLimited(notice.logKind, notice.line);
  else if (notice.kind === 'alert-channels') {
    // Names and reasons only (`webhook <host> (answered 503)`): never a URL's path or query.
    if (notice.failing.length === 0) troubles.clear('alerts-failing');
    else troubles.note('alerts-failing', notice.failing.join(', '));
  }
}

/**
 * The store is at its cap and evicting (decision 1000): /health says so while it lasts, and a
 * rate-limited line says so in the log (a flood makes this happen on every batch).
 */
function noteEviction(issues: number, maxMb: number): void {
  const detail = `the inbox database is at MONITORING_INBOX_MAX_MB (${maxMb} MiB): the issues seen longest ago are evicted`;
  troubles.note('inbox-at-cap', detail);
  warnLimited('inbox evicting', `[inbox] ${detail} (${issues} just now)`);
}

/**
 * Stores one report (from the tunnel, with its client's key, or the server's own client) and
 * tells /health whether storing works: a store that fails is `degraded` until a report is
 * stored again. A report Relay would refuse, or one refused while the store is busy, says
 * nothing about the store.
 */
export async function storeReport(
  envelope: Uint8Array,
  client?: string,
): Promise<{ eventId?: string }> {
  const inbox = localInbox();
  const problem = inbox.problem();
  if (problem) throw new IngestError('failed', problem);
  try {
    const stored = await inbox.ingestThread().ingest(envelope, Date.now(), client);
    troubles.clear('reports-not-stored');
    return stored;
  } catch (error) {
    const code = ingestErrorCode(error);
    if (code !== 'rejected' && code !== 'busy' && code !== 'over-share') {
      troubles.note(
        'reports-not-stored',
        `the local inbox failed to store a report (${code ?? 'error'})`,
      );
      warnLimited(
        'inbox store failed',
        `[inbox] a report could not be stored: ${messageOf(error)}`,
      );
    }
    throw error;
  }
}

/**
 * The file store's envelopes, from before the database, go through the same ingest as new
 * reports, once, at the first start: each file is deleted once the database has it (or has
 * refused it as Relay would).
 */
function importLegacyEnvelopes(inbox: LocalInbox): void {
  let names: string[];
  try {
    names = readdirSync(inbox.dir).filter((name) => LEGACY_ENVELOPE.test(name));
  } catch {
    return;
  }
  if (names.length === 0) return;
  // Oldest first: their names start with the time they were received.
  names.sort();
  void (async () => {
    let imported = 0;
    let refused = 0;
    for (const name of names) {
      const path = join(inbox.dir, name);
      try {
        await inbox.ingestThread().ingest(readFileSync(path), receivedAtOf(name));
        imported++;
      } catch (error) {
        if (ingestErrorCode(error) !== 'rejected') {
          console.warn(
            `[inbox] stopped importing the file store at ${name}: ${messageOf(error)}; the rest is tried at the next start`,
          );
          break;
        }
        refused++;
      }
      try {
        unlinkSync(path);
      } catch {
        // Another server on this inbox imported it at the same time: stored once either way.
      }
    }
    console.log(
      `[inbox] imported ${imported} envelope(s) from the file store into ${DATABASE_FILE}${refused > 0 ? ` (${refused} refused as invalid)` : ''}`,
    );
  })();
}

/**
 * `mkdir -p` that ends: Node 20's recursive mkdirSync never returns for a path under /proc (it
 * retries the parent forever), so each missing level is made on its own, and the first that
 * cannot be made throws.
 */
function makeDirectory(dir: string): void {
  const missing: string[] = [];
  for (let at = dir; !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const level of missing) mkdirSync(level);
}

function receivedAtOf(name: string): number {
  return Number(LEGACY_ENVELOPE.exec(name)?.[1] ?? Date.now());
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function codeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : messageOf(error);
}
