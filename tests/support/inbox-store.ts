/**
 * The store tests' set-up: events as ingest hands them to the database (already validated and
 * grouped), and databases in directories of their own, closed after each test. Each test file
 * names the defaults its cases read (a URL, hashes, tags), so what a case depends on is in view.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import {
  type InboxDatabase,
  openInboxDatabase,
  type PreparedEnvelope,
  type PreparedEvent,
} from '#app/server/inbox/store/inbox-database.server';

let counter = 0;

/**
 * A builder of one-event envelopes: a TypeError at `timestamp`, with `defaults` laid over it and
 * then each call's overrides. Every event gets an id of its own.
 */
export function preparedEvents(
  defaults: Partial<PreparedEvent> & Pick<PreparedEvent, 'timestamp'>,
): (overrides?: Partial<PreparedEvent>) => PreparedEnvelope {
  return (overrides = {}) => {
    counter++;
    return {
      event: {
        eventId: counter.toString(16).padStart(32, '0'),
        level: 'error',
        platform: 'javascript',
        environment: 'production',
        release: 'app@1.0.0',
        url: '',
        title: 'TypeError: x is undefined',
        culprit: 'app/routes/index.tsx in onClick',
        hashes: ['typeerror'],
        groupingConfig: 'newstyle:2023-01-11',
        tags: [],
        payload: '{}',
        ...defaults,
        ...overrides,
      },
      sessions: [],
      counts: { event: 1 },
    };
  };
}

/**
 * Fresh inbox databases (a file in a new directory named after `prefix`): `open` makes one, and
 * whatever is in `opened` is closed after each test, so a test that opens a database its own way
 * adds it there (and takes out one it closed itself). Call it at the top of a test file.
 */
export function inboxDatabases(
  prefix: string,
  defaultMaxEvents: number,
): {
  open(maxEvents?: number): { db: InboxDatabase; path: string };
  opened: InboxDatabase[];
} {
  const opened: InboxDatabase[] = [];
  afterEach(() => {
    for (const db of opened.splice(0)) db.close();
  });
  const open = (maxEvents = defaultMaxEvents) => {
    const path = join(mkdtempSync(join(tmpdir(), prefix)), 'inbox.sqlite');
    const db = openInboxDatabase(path, { maxEvents });
    opened.push(db);
    return { db, path };
  };
  return { open, opened };
}
