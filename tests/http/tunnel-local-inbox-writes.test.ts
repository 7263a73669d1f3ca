/**
 * Local inbox mode, the writes themselves: the tunnel answers 200 only for an envelope that is
 * stored whole, 500 when the disk refuses it, and leaves nothing behind when it fails.
 * (The writer thread's crash and time-out paths: tests/unit/server/inbox/inbox-writer.test.ts.)
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/local-dsn';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { binaryEnvelope, send } from '#tests/support/envelopes';

const TUNNEL = '/monitoring?o=0&p=1';
const servers: BuiltServer[] = [];
const freshInbox = () => join(mkdtempSync(join(tmpdir(), 'tunnel-writes-')), 'inbox');
/** Every name in the directory, temp files included. */
const everything = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};
/** The stored envelopes' bytes, as sortable text. */
const storedBytes = (dir: string) =>
  everything(dir)
    .filter((name) => name.endsWith('.envelope'))
    .map((name) => readFileSync(join(dir, name)).toString('base64'))
    .sort();

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

describe('local inbox writes', () => {
  it('answers 200 to each of many envelopes sent at once, and stores every one whole', async () => {
    const dir = freshInbox();
    const server = await startBuiltServer({ MONITORING_INBOX_DIR: dir });
    servers.push(server);
    // Replay-like items: stored byte for byte (only events are bounded).
    const envelopes = Array.from({ length: 150 }, (_, n) =>
      binaryEnvelope(LOCAL_INBOX_DSN, 1_000 + ((n * 7_919) % 60_000)),
    );
    const answers = await Promise.all(
      envelopes.map((body) => send(`${server.url}${TUNNEL}`, { body })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(envelopes.map(() => 200));
    // Answered, so stored: nothing is still on its way to the disk.
    expect(storedBytes(dir)).toEqual(envelopes.map((bytes) => bytes.toString('base64')).sort());
    expect(everything(dir).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('answers 500 when the disk refuses a write, leaves nothing of it, and stores the next', async () => {
    const dir = freshInbox();
    const server = await startBuiltServer(
      { MONITORING_INBOX_DIR: dir },
      { fileSizeLimitBytes: 64 * 1024 },
    );
    servers.push(server);
    // Stored first, so the directory exists and the failure is the write's own.
    const small = binaryEnvelope(LOCAL_INBOX_DSN, 1_000);
    expect((await send(`${server.url}${TUNNEL}`, { body: small })).status).toBe(200);

    const large = binaryEnvelope(LOCAL_INBOX_DSN, 200_000);
    const refused = await send(`${server.url}${TUNNEL}`, { body: large });
    expect(refused.status).toBe(500);
    expect(refused.text).toBe('local inbox failed');
    await server.stderrBarrier();
    expect(server.output()).toMatch(/\[tunnel\] 500 local inbox failed: EFBIG: file too large/);
    // The half-written temp file is gone; only the first envelope is there.
    expect(everything(dir)).toHaveLength(1);
    expect(storedBytes(dir)).toEqual([small.toString('base64')]);

    const next = binaryEnvelope(LOCAL_INBOX_DSN, 2_000);
    expect((await send(`${server.url}${TUNNEL}`, { body: next })).status).toBe(200);
    expect(storedBytes(dir)).toEqual([small, next].map((bytes) => bytes.toString('base64')).sort());
    expect(everything(dir)).toHaveLength(2);
  });
});
