/** Local inbox mode (no SENTRY_DSN): the tunnel stores envelopes for the local DSN and forwards nothing. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { minimalEnvelope } from '#app/monitoring/recorder/minimal-envelope';
import { SDK_METADATA } from '#app/monitoring/recorder/recorder';
import { sessionEnvelope } from '#app/monitoring/start-browser-monitoring';
import { type FakeSentry, startFakeSentry } from '#tests/fixtures/fake-sentry';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { chunkedBody, eventId, send, textEnvelope } from '#tests/support/envelopes';
import { readInbox } from '#tests/support/inbox-database';

let fake: FakeSentry;
let server: BuiltServer;
let inboxDir: string;

beforeAll(async () => {
  fake = await startFakeSentry();
  inboxDir = join(mkdtempSync(join(tmpdir(), 'tunnel-inbox-')), 'inbox');
  server = await startBuiltServer({ MONITORING_INBOX_DIR: inboxDir });
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

/** What the inbox stored: events and counted items. */
const stored = () => readInbox(inboxDir);

describe('local inbox mode', () => {
  it('stores an event for the local DSN and answers like Sentry', async () => {
    const id = eventId();
    const answer = await send(`${server.url}/monitoring?o=0&p=1`, {
      body: textEnvelope(LOCAL_INBOX_DSN, id),
    });

    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(answer.text)).toEqual({ id });
    // The tunnel answers once the event is stored.
    expect(stored().events.map((event) => event.eventId)).toContain(id);
    expect(fake.started()).toBe(0);
  });

  it('counts envelopes that are not events, storing no event for them', async () => {
    const before = stored();
    const spans = Buffer.from(
      `${JSON.stringify({ dsn: LOCAL_INBOX_DSN })}\n{"type":"span"}\n{"items":[]}\n`,
    );
    const answer = await send(`${server.url}/monitoring?o=0&p=1`, { body: spans });
    // The tunnel answers once the store decided: nothing is still on its way to the inbox.
    expect(answer.status).toBe(200);
    const after = stored();
    expect(after.items.span).toBe((before.items.span ?? 0) + 1);
    expect(after.events).toHaveLength(before.events.length);
  });

  it('keeps what a page sends without the SDK, as the browser sends it (text/plain)', async () => {
    const context = {
      dsn: LOCAL_INBOX_DSN,
      environment: 'production',
      release: 'app@1',
      userAgent: 'Chromium',
      sentAt: new Date(),
      sdk: SDK_METADATA,
    };
    const id = eventId();
    const event = minimalEnvelope(
      {
        id,
        kind: 'exception',
        at: Date.now() / 1000,
        url: 'http://127.0.0.1/about',
        name: 'Error',
        message: 'sent by beacon',
        stack: new Error('sent by beacon').stack,
        mechanism: { type: 'auto.function.react.error_boundary', handled: true },
      },
      context,
    );
    const sid = eventId();
    const session = sessionEnvelope(
      { sid, started: Date.now() / 1000, status: 'ok', errors: 0 },
      context,
    );
    for (const body of [event, session]) {
      const answer = await send(`${server.url}/monitoring?o=0&p=1`, {
        body: Buffer.from(body),
        // What sendBeacon and fetch give a string body.
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
      });
      expect(answer.status).toBe(200);
    }
    const inbox = stored();
    const beacon = inbox.events.find((event) => event.eventId === id);
    expect(JSON.stringify(beacon?.event)).toContain('sent by beacon');
    expect(inbox.items.session).toBeGreaterThanOrEqual(1);
  });

  it('413s a chunked envelope that grows past SENTRY_TUNNEL_MAX_BYTES (1 MiB) and stores nothing', async () => {
    const before = stored();
    const body = chunkedBody([textEnvelope(LOCAL_INBOX_DSN), Buffer.alloc(1024 * 1024, 0x61)]);
    const answer = await send(`${server.url}/monitoring?o=0&p=1`, { body });
    expect(answer.status).toBe(413);
    expect(stored()).toEqual(before);
  });

  it.each([
    ['a foreign DSN in the header', '?o=0&p=1', () => fake.dsn('1')],
    ['a query naming another project', '?o=0&p=2', () => LOCAL_INBOX_DSN],
  ])('403s %s and stores nothing', async (_name, query, dsn) => {
    const before = stored();
    const answer = await send(`${server.url}/monitoring${query}`, { body: textEnvelope(dsn()) });
    expect(answer.status).toBe(403);
    expect(stored()).toEqual(before);
    expect(fake.started()).toBe(0);
  });
});
