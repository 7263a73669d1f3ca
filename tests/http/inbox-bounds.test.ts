/**
 * Issue 32's floods against the built server, over HTTP on loopback: what a client sends cannot
 * grow the inbox past what it stores (decisions 1000 and 1001).
 *
 * - A type bomb (envelopes of 265 items, each a new type name) leaves /errors small: one
 *   "other" count, not a word per name.
 * - Events that each open a new issue with 30 long random tags and a release of their own keep
 *   the database and its WAL within MONITORING_INBOX_MAX_MB, the newest issues still there,
 *   /health degraded while it evicts.
 * - Envelopes of 100 crashed sessions each keep the session outcomes within the cap's share.
 * - Clearing thousands of tagged issues runs off the page thread: pages answer meanwhile, the
 *   progress is on /errors, and the file shrinks after.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import {
  openInboxDatabase,
  type PreparedEnvelope,
} from '#app/server/inbox/store/inbox-database.server';
import { BROWSER_USER_AGENT } from '#tests/support/browser-agent';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { eventId, send } from '#tests/support/envelopes';
import { DATABASE_FILE, seededEvent, seedInbox } from '#tests/support/seed-inbox';
import { until, waitFor } from '#tests/support/wait-for';

const CAP_MB = 8;
const TUNNEL = '/monitoring?o=0&p=1';

const letters = (n: number) =>
  Array.from(randomBytes(n), (byte) => String.fromCharCode(97 + (byte % 26))).join('');

/** Sends each body to the tunnel, a few at a time, waiting as told on 429; every answer's status. */
async function flood(server: BuiltServer, bodies: Iterable<Uint8Array>, inFlight = 8) {
  const iterator = bodies[Symbol.iterator]();
  const statuses: number[] = [];
  const sender = async () => {
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      for (;;) {
        const answer = await send(`${server.url}${TUNNEL}`, { body: next.value });
        if (answer.status !== 429) {
          statuses.push(answer.status);
          break;
        }
        const wait = Number(answer.headers.get('retry-after') ?? 1) * 1000;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, sender));
  return statuses;
}

function envelope(
  header: Record<string, unknown>,
  items: Array<[Record<string, unknown>, string]>,
) {
  const lines = [JSON.stringify({ dsn: LOCAL_INBOX_DSN, ...header })];
  for (const [itemHeader, payload] of items) lines.push(JSON.stringify(itemHeader), payload);
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** The type bomb: 265 items, each of a type never seen before. */
function* typeBomb(count: number) {
  for (let n = 0; n < count; n++) {
    yield envelope(
      {},
      Array.from({ length: 265 }, () => [{ type: `q${letters(28)}`, length: 0 }, '']),
    );
  }
}

/** An event that opens an issue of its own: 30 random 200-character tags, a release of its own. */
function taggedEvent(id = eventId()) {
  const tags = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`t${i}`, letters(200)]));
  const event = {
    event_id: id,
    timestamp: Date.now() / 1000,
    platform: 'javascript',
    level: 'error',
    release: `flood@${letters(12)}`,
    tags,
    exception: { values: [{ type: 'FloodError', value: letters(24) }] },
  };
  return envelope({ event_id: id }, [[{ type: 'event' }, JSON.stringify(event)]]);
}

/** 100 sessions that crashed, each its own id. */
function crashedSessions() {
  const started = new Date().toISOString();
  return envelope(
    {},
    Array.from({ length: 100 }, () => [
      { type: 'session' },
      JSON.stringify({
        sid: randomBytes(16).toString('hex'),
        init: true,
        status: 'crashed',
        started,
        attrs: { release: 'app@1.0.0', environment: 'production' },
      }),
    ]),
  );
}

async function page(server: BuiltServer, path: string) {
  const started = performance.now();
  const response = await fetch(`${server.url}${path}`, {
    headers: { 'User-Agent': BROWSER_USER_AGENT },
    redirect: 'manual',
  });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, body, html: body.toString(), ms: performance.now() - started };
}

function onDisk(dir: string): number {
  const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);
  return size(join(dir, DATABASE_FILE)) + size(join(dir, `${DATABASE_FILE}-wal`));
}

function count(dir: string, sql: string): number {
  const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
}

describe(`an inbox capped at ${CAP_MB} MiB under floods`, () => {
  let server: BuiltServer;
  let inboxDir: string;

  beforeAll(async () => {
    inboxDir = seedInbox([]);
    server = await startBuiltServer({
      MONITORING_INBOX_DIR: inboxDir,
      MONITORING_INBOX_MAX_MB: String(CAP_MB),
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('counts a type bomb under one "other": /errors stays small', async () => {
    const statuses = await flood(server, typeBomb(400));
    expect(statuses.filter((status) => status === 200)).toHaveLength(400);
    expect(count(inboxDir, 'SELECT count(*) FROM item_counts')).toBe(1);
    const list = await page(server, '/errors');
    console.log(
      `/errors after a type bomb of 106,000 new names: ${list.body.length} bytes in ${Math.round(list.ms)} ms`,
    );
    expect(list.status).toBe(200);
    expect(list.html).toContain('Also received: 106000 other items.');
    expect(list.body.length).toBeLessThan(1024 * 1024);
  }, 120_000);

  it('holds the file and its WAL within the cap under new tagged issues, the newest still there', async () => {
    const sent: string[] = [];
    let largest = 0;
    function* events() {
      for (let n = 0; n < 1_500; n++) {
        const id = eventId();
        sent.push(id);
        if (n % 50 === 0) largest = Math.max(largest, onDisk(inboxDir));
        yield taggedEvent(id);
      }
    }
    const statuses = await flood(server, events());
    largest = Math.max(largest, onDisk(inboxDir));
    console.log(
      `${CAP_MB} MiB cap: largest file and WAL seen ${(largest / 1024 / 1024).toFixed(2)} MiB`,
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(1_500);
    expect(largest).toBeLessThanOrEqual(CAP_MB * 1024 * 1024);
    // Some went (the oldest), the newest are there.
    const issues = count(inboxDir, 'SELECT count(*) FROM issues');
    expect(issues).toBeLessThan(1_500);
    for (const id of sent.slice(-5)) {
      expect((await page(server, `/errors/${id}`)).status).toBe(307);
    }
    expect((await page(server, `/errors/${sent[0]}`)).status).toBe(404);
    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health.status).toBe('degraded');
    expect(health.reasons.join('\n')).toContain(
      'inbox-at-cap: the inbox database is at MONITORING_INBOX_MAX_MB (8 MiB)',
    );
  }, 300_000);

  it('keeps session outcomes within the cap’s share under crashed-session envelopes', async () => {
    const statuses = await flood(server, Array.from({ length: 300 }, crashedSessions));
    expect(statuses.filter((status) => status === 200)).toHaveLength(300);
    expect(count(inboxDir, 'SELECT count(*) FROM session_outcomes')).toBeLessThanOrEqual(
      CAP_MB * 128,
    );
    expect(count(inboxDir, "SELECT crashed FROM release_health WHERE release = 'app@1.0.0'")).toBe(
      30_000,
    );
    expect(onDisk(inboxDir)).toBeLessThanOrEqual(CAP_MB * 1024 * 1024);
  }, 120_000);
});

describe('clearing an inbox of many tagged issues', () => {
  const ISSUES = 12_000;
  let server: BuiltServer;
  let inboxDir: string;

  beforeAll(async () => {
    inboxDir = seedInbox([]);
    const db = openInboxDatabase(join(inboxDir, DATABASE_FILE), { maxEvents: 10_000 });
    const tags = Array.from({ length: 30 }, (_, i): [string, string] => [`t${i}`, letters(200)]);
    for (let batch = 0; batch < ISSUES / 1_000; batch++) {
      const seeds: PreparedEnvelope[] = Array.from({ length: 1_000 }, (_, i) => {
        const seed = seededEvent({ message: `seeded ${batch * 1_000 + i}` });
        const event = seed.event as NonNullable<PreparedEnvelope['event']>;
        return {
          ...seed,
          event: { ...event, tags: tags.map(([key, value]) => [key, `${i}${value}`]) },
        };
      });
      db.ingest(seeds, Date.now());
      // The test runner's own messages get through between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    db.checkpoint();
    db.close();
    server = await startBuiltServer({ MONITORING_INBOX_DIR: inboxDir });
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('runs off the page thread: pages answer meanwhile, its progress shows, and the file shrinks', async () => {
    const before = onDisk(inboxDir);
    const confirm = await page(server, '/errors?confirm=clear');
    expect(confirm.status).toBe(200);
    const form = /<form[^>]*aria-label="Clear the inbox"[^>]*>/.exec(confirm.html)?.[0] ?? '';
    const action = /action="([^"]+)"/.exec(form)?.[1];
    expect(action).toMatch(/^\/_server\//);
    const cleared = await fetch(`${server.url}${action?.replaceAll('&amp;', '&')}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url },
      body: 'confirm=clear',
      redirect: 'manual',
    });
    expect(cleared.status).toBe(303);
    // Not done within the answer's wait: the list says how far it got, and pages answer.
    expect(cleared.headers.get('location')).toBe('/errors');
    // Until the list no longer says it is clearing: /errors and another page, again and again.
    const statuses: number[] = [];
    const progress: string[] = [];
    const emptied = await waitFor(
      'the list to stop saying it is clearing',
      async () => {
        const list = await page(server, '/errors');
        statuses.push(list.status, (await page(server, '/about')).status);
        const shown = /Clearing the inbox: \d+ of 12000 issues deleted so far/.exec(list.html)?.[0];
        if (!shown) return list;
        progress.push(shown);
      },
      { timeoutMs: 120_000, everyMs: 0 },
    );
    expect(emptied.html).toContain('0 issues, 0 events');
    console.log(`clear: ${progress.length} progress pages seen, e.g. "${progress.at(-1)}"`);
    expect(progress.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200)).toBe(true);
    // The pages given back and the WAL checkpointed and truncated: a 100 MiB inbox is gone.
    await until(
      "the inbox's files to shrink under 2 MiB",
      () => onDisk(inboxDir) < 2 * 1024 * 1024,
      { timeoutMs: 60_000 },
    );
    console.log(
      `clear: ${(before / 1024 / 1024).toFixed(1)} MiB before, ${(onDisk(inboxDir) / 1024 / 1024).toFixed(1)} MiB after`,
    );
  }, 300_000);
});
