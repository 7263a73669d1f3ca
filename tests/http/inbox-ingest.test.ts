/**
 * The local inbox's ingest against the built server (issue 23): the tunnel answers as Relay
 * would, events group into issues, each client has a rate, nothing that is not an error evicts
 * one, a `kill -9` loses no acknowledged event, and a broken store is loud. What the database
 * holds is read from its file, read-only, beside the running server.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { eventId, postFrom } from '#tests/support/envelopes';
import { readInbox } from '#tests/support/inbox-database';
import { until } from '#tests/support/wait-for';

const encoder = new TextEncoder();

/** An error event envelope as the browser SDK sends one: one frame of ours, in-app. */
function errorEnvelope(
  options: { id?: string; line?: number; message?: string; type?: string } = {},
) {
  const id = options.id ?? eventId();
  const event = JSON.stringify({
    event_id: id.replaceAll('-', '').toLowerCase(),
    timestamp: Date.now() / 1000,
    platform: 'javascript',
    level: 'error',
    environment: 'production',
    release: 'app@1.0.0',
    request: { url: 'http://localhost:3000/sentry-example-page' },
    contexts: { browser: { name: 'Chrome', version: '156.0.1' } },
    exception: {
      values: [
        {
          type: options.type ?? 'TypeError',
          value: options.message ?? 'x is undefined',
          stacktrace: {
            frames: [
              {
                filename: 'http://localhost:3000/src/routes/about.tsx',
                function: 'handleClick',
                lineno: options.line ?? 12,
                colno: 7,
                in_app: true,
              },
            ],
          },
        },
      ],
    },
  });
  return encoder.encode(
    `${JSON.stringify({ event_id: id, dsn: LOCAL_INBOX_DSN })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(event) })}\n${event}\n`,
  );
}

function sessionEnvelope(): Uint8Array {
  const sid = eventId();
  const now = new Date().toISOString();
  return encoder.encode(
    `${JSON.stringify({ dsn: LOCAL_INBOX_DSN })}\n{"type":"session"}\n${JSON.stringify({ sid, init: true, started: now, timestamp: now, status: 'ok', errors: 0, attrs: { release: 'app@1.0.0', environment: 'production' } })}\n`,
  );
}

function spanEnvelope(): Uint8Array {
  return encoder.encode(`${JSON.stringify({ dsn: LOCAL_INBOX_DSN })}\n{"type":"span"}\n{}\n`);
}

/** A tunnel POST from `localAddress` (each 127.x.y.z is a client of its own). */
function post(server: BuiltServer, body: Uint8Array, localAddress = '127.0.0.1') {
  return postFrom(server.url, body, localAddress);
}

/** What the inbox database holds, read beside the server: issues, event ids, item counts. */
function inboxCounts(dir: string) {
  const inbox = readInbox(dir);
  return {
    issues: inbox.issues.map(({ id, title, count }) => ({ id, title, count })),
    events: inbox.events.map((event) => event.eventId),
    items: inbox.items,
  };
}

function freshDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'inbox-ingest-')), 'inbox');
}

describe('the tunnel in local inbox mode', () => {
  let server: BuiltServer;
  let dir: string;
  beforeAll(async () => {
    dir = freshDir();
    server = await startBuiltServer({ MONITORING_INBOX_DIR: dir });
  });
  afterAll(() => server?.stop());

  const header = JSON.stringify({ dsn: LOCAL_INBOX_DSN });
  const invalid = 'invalid event envelope: ';
  it.each([
    [
      'an item header without type',
      `${header}\n{"length":2}\n{}\n`,
      400,
      `${invalid}invalid item header`,
    ],
    [
      'an item header that is not JSON',
      `${header}\n{"type":"event"}\n{}\ngarbage\n{}\n`,
      400,
      `${invalid}invalid item header`,
    ],
    [
      'a length past the end',
      `${header}\n{"type":"attachment","length":100}\nabc`,
      400,
      `${invalid}unexpected end of file`,
    ],
    ['a header followed by a blank line', `${header}\n\n`, 400, `${invalid}unexpected end of file`],
    [
      'a sized payload not followed by a newline',
      `${header}\n{"type":"span","length":2}\n{}{"type":"span"}\n{}\n`,
      400,
      `${invalid}missing newline after header or payload`,
    ],
    [
      'an event id that is not one',
      `${JSON.stringify({ dsn: LOCAL_INBOX_DSN, event_id: 'a/b?c#d' })}\n{"type":"event"}\n{}\n`,
      400,
      `${invalid}invalid envelope header`,
    ],
    [
      // ItemType::is_internal (relay-server/src/envelope/item.rs): BadStoreRequest::InternalEnvelope.
      'an item of the internal type integration',
      `${header}\n{"type":"integration","content_type":"application/vnd.sentry.integration.otel.logs+json"}\n{}\n`,
      400,
      'envelope contains internal items',
    ],
    [
      // EnvelopeHeaders is serde-derived: "duplicate field `sent_at`" (envelope/mod.rs).
      'a header with sent_at twice',
      `${JSON.stringify({ dsn: LOCAL_INBOX_DSN }).slice(0, -1)},"sent_at":"2026-11-28T00:00:00Z","sent_at":"2026-11-28T00:00:01Z"}\n{"type":"session"}\n{}\n`,
      400,
      `${invalid}invalid envelope header`,
    ],
    [
      // ItemHeaders::length is an Option<u32>: the float 41.0 fails serde (envelope/item.rs).
      'an item length of 41.0',
      `${header}\n{"type":"event","length":41.0}\n{"message":"hello world","level":"error"}\n`,
      400,
      `${invalid}invalid item header`,
    ],
    [
      // EnvelopeHeaders::complete and test_parse_request_validate_origin (envelope/mod.rs):
      // the request has no Origin or Referer, the envelope names one.
      'an envelope origin other than the request’s',
      `${JSON.stringify({ dsn: LOCAL_INBOX_DSN, origin: 'http://localhost/' })}\n{"type":"event"}\n{}\n`,
      400,
      `${invalid}origin header mismatch between envelope and request`,
    ],
    [
      'two events in one envelope',
      `${header}\n{"type":"event"}\n{}\n{"type":"event"}\n{}\n`,
      413,
      "envelope exceeded size limits for type 'event'",
    ],
  ])(
    'refuses %s as Relay does (%i), saying why in the answer and one log line, storing nothing',
    async (_name, body, status, reason) => {
      const mark = server.output().length;
      const answer = await post(server, encoder.encode(body));
      expect(answer.status).toBe(status);
      expect(answer.text).toBe(reason);
      expect(await server.printedSince(mark)).toBe(`[tunnel] ${status} ${reason}\n`);
      expect(inboxCounts(dir).issues).toEqual([]);
    },
  );

  it('groups ten throws of one bug into one issue with count 10, whatever the line', async () => {
    for (let i = 0; i < 10; i++) {
      const answer = await post(server, errorEnvelope({ line: 12 + i, message: 'x is undefined' }));
      expect(answer.status).toBe(200);
    }
    await post(server, errorEnvelope({ type: 'RangeError', message: 'out of range' }));
    const { issues } = inboxCounts(dir);
    expect(issues.map((issue) => [issue.title, issue.count])).toEqual([
      ['TypeError: x is undefined', 10],
      ['RangeError: out of range', 1],
    ]);
  });

  it('stores one event for an id sent again dashed and upper-case, and answers its normalised id', async () => {
    const id = eventId();
    const dashed =
      `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`.toUpperCase();
    expect(JSON.parse((await post(server, errorEnvelope({ id }))).text)).toEqual({ id });
    const again = await post(server, errorEnvelope({ id: dashed }));
    expect(again.status).toBe(200);
    expect(JSON.parse(again.text)).toEqual({ id });
    expect(inboxCounts(dir).events.filter((stored) => stored === id)).toHaveLength(1);
  });
});

describe('limits per client and retention', () => {
  let server: BuiltServer;
  let dir: string;
  beforeAll(async () => {
    dir = freshDir();
    server = await startBuiltServer({
      MONITORING_INBOX_DIR: dir,
      MONITORING_INBOX_MAX_EVENTS: '100',
    });
  });
  afterAll(() => server?.stop());

  it('keeps an error through 1,500 session and span envelopes', async () => {
    expect((await post(server, errorEnvelope({ message: 'the rare one' }))).status).toBe(200);
    // From three clients, so that no client meets its rate.
    for (let batch = 0; batch < 30; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          post(server, i % 2 ? sessionEnvelope() : spanEnvelope(), `127.0.0.${2 + (i % 3)}`),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    }
    const counts = inboxCounts(dir);
    expect(counts.issues.map((issue) => issue.title)).toEqual(['TypeError: the rare one']);
    expect(counts.events).toHaveLength(1);
    expect(counts.items).toMatchObject({ event: 1, session: 750, span: 750 });
  });

  it('answers 429 with Retry-After and X-Sentry-Rate-Limits to a client past its rate, while another client still gets 200', async () => {
    const greedy = '127.0.0.9';
    const spansBefore = inboxCounts(dir).items.span ?? 0;
    let refused: Awaited<ReturnType<typeof post>> | undefined;
    let kept = 0;
    // The bucket holds 1,000 and refills at 100 a second: any pace past that meets a 429, on a
    // quiet machine after about 1,200 posts, on a busy one later (each batch waits for its 200s).
    for (let i = 0; i < 6000 && !refused; i += 50) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => post(server, spanEnvelope(), greedy)),
      );
      refused = answers.find((answer) => answer.status === 429);
      kept += answers.filter((answer) => answer.status === 200).length;
    }
    expect(refused?.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused?.headers['x-sentry-rate-limits']).toMatch(/^\d+::organization:client_rate$/);
    // What was refused was not stored: only the 200s were.
    expect(inboxCounts(dir).items.span).toBe(spansBefore + kept);
    expect((await post(server, errorEnvelope(), '127.0.0.10')).status).toBe(200);
  });
});

describe('durability', () => {
  it('loses no acknowledged event to kill -9 during a burst, and the inbox opens again', async () => {
    const dir = freshDir();
    const server = await startBuiltServer({ MONITORING_INBOX_DIR: dir });
    const acknowledged: string[] = [];
    const burst = Array.from({ length: 300 }, (_, i) =>
      post(server, errorEnvelope({ message: `burst ${i % 7}` }), `127.0.1.${1 + (i % 20)}`).then(
        (answer) => {
          if (answer.status === 200) acknowledged.push(JSON.parse(answer.text).id);
        },
        () => undefined,
      ),
    );
    await until('20 reports acknowledged', () => acknowledged.length >= 20);
    process.kill(server.pid, 'SIGKILL');
    await Promise.all(burst);
    await server.stop();
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);

    const again = await startBuiltServer({ MONITORING_INBOX_DIR: dir });
    try {
      expect((await post(again, errorEnvelope())).status).toBe(200);
      const stored = new Set(inboxCounts(dir).events);
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      const db = new Database(join(dir, 'inbox.sqlite'), { readonly: true });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
    } finally {
      await again.stop();
    }
  });

  it('lets two servers share one inbox', async () => {
    const dir = freshDir();
    const first = await startBuiltServer({ MONITORING_INBOX_DIR: dir });
    const second = await startBuiltServer({ MONITORING_INBOX_DIR: dir });
    try {
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) => post(i % 2 ? first : second, errorEnvelope())),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(60).fill(200));
      expect(inboxCounts(dir).issues).toEqual([
        { id: 1, title: 'TypeError: x is undefined', count: 60 },
      ]);
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  it('imports the file store’s envelopes on the first start, once', async () => {
    const dir = freshDir();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 3; i++) {
      const name = `${String(Date.now() - 1000 + i).padStart(15, '0')}-00000${i}-0000abcd.envelope`;
      writeFileSync(join(dir, name), errorEnvelope({ message: 'from the file store' }));
    }
    const server = await startBuiltServer({ MONITORING_INBOX_DIR: dir });
    try {
      await server.waitForOutput(/\[inbox\] imported 3 envelope\(s\) from the file store/);
      expect(inboxCounts(dir).issues).toEqual([
        { id: 1, title: 'TypeError: from the file store', count: 3 },
      ]);
      expect(readdirSync(dir).filter((name) => name.endsWith('.envelope'))).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

describe('a store that cannot be used', () => {
  it('says so once at start, answers reports 500, tells /health why, and still stops on SIGTERM', async () => {
    // A directory under a regular file: every open fails with ENOTDIR, even for root.
    const parent = mkdtempSync(join(tmpdir(), 'inbox-broken-'));
    writeFileSync(join(parent, 'file'), '');
    const server = await startBuiltServer({ MONITORING_INBOX_DIR: join(parent, 'file', 'inbox') });
    try {
      await server.waitForOutput(/\[inbox\] the inbox database .* cannot be opened: .*ENOTDIR/);
      const answer = await post(server, errorEnvelope());
      expect(answer.status).toBe(500);
      const health = await (await fetch(`${server.url}/health`)).json();
      expect(health.status).toBe('degraded');
      expect(health.reasons).toEqual([
        expect.stringMatching(
          /^reports-not-stored: the inbox database cannot be opened \(ENOTDIR\)/,
        ),
      ]);
    } finally {
      await server.stop();
    }
    expect(server.exitCode()).toBe(0);
  });
});
