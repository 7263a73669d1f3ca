/**
 * Seeds an inbox database before a server starts on it: issues, events, sessions and item
 * counts written through the store's own `ingest`, as the ingest thread would. Imports only the
 * database module (not the facade: that reads package.json through env.server.ts, which
 * Playwright's loader cannot import). Returns the directory for MONITORING_INBOX_DIR.
 *
 * `seededEvent` stands in for ingest's validation and grouping: the event's JSON becomes the
 * payload as it is given, its title is "type: value" (or the message), and it groups by that
 * title unless the test names the hashes. Envelope bytes (tests/fixtures/inbox-envelopes.ts)
 * are read the same way, their first event item only.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { payloadJson, splitEnvelope } from '#app/server/inbox/envelope';
import {
  openInboxDatabase,
  type PreparedEnvelope,
  type PreparedEvent,
} from '#app/server/inbox/store/inbox-database.server';
import { type ErrorEventOptions, errorEvent } from '#tests/fixtures/inbox-envelopes';

/** The file the app opens in MONITORING_INBOX_DIR (store/local-inbox.server.ts). */
export const DATABASE_FILE = 'inbox.sqlite';

export interface SeedOptions {
  /** Raw events kept in all (the app's default is 10,000). */
  maxEvents?: number;
  /** When the envelopes arrived, ms since the epoch (default: now). */
  receivedAt?: number;
}

export type Seed = PreparedEnvelope | Uint8Array;

/** A fresh inbox directory holding `seeds`, ingested in order. */
export function seedInbox(seeds: readonly Seed[], options: SeedOptions = {}): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'inbox-seed-')), 'inbox');
  mkdirSync(dir, { recursive: true });
  return seedInto(dir, seeds, options);
}

/** Adds `seeds` to the inbox in `dir` (a running server's too: SQLite takes two processes). */
export function seedInto(dir: string, seeds: readonly Seed[], options: SeedOptions = {}): string {
  const db = openInboxDatabase(join(dir, DATABASE_FILE), {
    maxEvents: options.maxEvents ?? 10_000,
  });
  try {
    const receivedAt = options.receivedAt ?? Date.now();
    for (const seed of seeds) {
      db.ingest([seed instanceof Uint8Array ? fromEnvelope(seed) : seed], receivedAt);
    }
  } finally {
    db.close();
  }
  return dir;
}

export interface SeededEventOptions extends Omit<ErrorEventOptions, 'timestamp'> {
  /** When it happened, ms since the epoch (default: now). */
  at?: number;
  /** Grouping hashes (default: one from the title). */
  hashes?: string[];
  culprit?: string;
  /** Tags for the breakdown (default: browser, os, url, release, environment). */
  tags?: Array<[string, string]>;
  /** Fields laid over the event's JSON (the payload): logentry, threads, breadcrumbs, … */
  event?: Record<string, unknown>;
}

/** An error event as the browser SDK sends it (tests/fixtures), prepared for the store. */
export function seededEvent(options: SeededEventOptions = {}): PreparedEnvelope {
  const { at = Date.now(), hashes, culprit, tags, event: extra, ...fixture } = options;
  const eventId = options.eventId ?? randomEventId();
  const event = { ...errorEvent({ ...fixture, eventId, timestamp: at / 1000 }), ...extra };
  return preparedFrom(event, eventId, { hashes, culprit, tags });
}

/** A session update for release health, with its item count. */
export function seededSessions(
  sessions: PreparedEnvelope['sessions'],
  counts: Record<string, number> = { session: sessions.length },
): PreparedEnvelope {
  return { sessions, counts };
}

function fromEnvelope(bytes: Uint8Array): PreparedEnvelope {
  const envelope = splitEnvelope(bytes);
  const counts: Record<string, number> = {};
  for (const item of envelope.items) {
    const type = String(item.header.type);
    counts[type] = (counts[type] ?? 0) + 1;
  }
  const item = envelope.items.find((candidate) => candidate.header.type === 'event');
  const event = item ? payloadJson(item) : undefined;
  if (!event || typeof event !== 'object' || Array.isArray(event)) return { sessions: [], counts };
  const record = event as Record<string, unknown>;
  const eventId = typeof record.event_id === 'string' ? record.event_id : randomEventId();
  return { ...preparedFrom(record, eventId, {}), counts };
}

function preparedFrom(
  event: Record<string, unknown>,
  eventId: string,
  given: { hashes?: string[]; culprit?: string; tags?: Array<[string, string]> },
): PreparedEnvelope {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const values = (event.exception as { values?: Array<Record<string, unknown>> } | undefined)
    ?.values;
  const thrown = values?.[values.length - 1];
  const logentry = event.logentry as Record<string, unknown> | undefined;
  const title = thrown
    ? `${text(thrown.type) || 'Error'}: ${text(thrown.value)}`
    : text(logentry?.formatted) || text(event.message) || '(no message)';
  const environment = text(event.environment);
  const release = text(event.release);
  const url = text((event.request as Record<string, unknown> | undefined)?.url);
  const timestamp =
    typeof event.timestamp === 'number' ? Math.round(event.timestamp * 1000) : Date.now();
  const prepared: PreparedEvent = {
    eventId,
    timestamp,
    level: text(event.level) || 'error',
    platform: text(event.platform) || 'javascript',
    environment,
    release,
    url,
    title,
    culprit: given.culprit ?? 'example-page.js in handleThrowClick',
    hashes: given.hashes ?? [`title:${title}`],
    groupingConfig: 'test-seed',
    tags: given.tags ?? [
      ['browser', 'Chrome 156'],
      ['os', 'Linux'],
      ['url', url],
      ['release', release],
      ['environment', environment],
    ],
    payload: JSON.stringify(event),
  };
  return { event: prepared, sessions: [], counts: { event: 1 } };
}

let seeded = 0;
function randomEventId(): string {
  seeded += 1;
  return `${Date.now().toString(16)}${seeded.toString(16).padStart(8, '0')}`
    .padStart(32, 'e')
    .slice(-32);
}
