/**
 * Local inbox mode, the writes themselves: the tunnel answers 200 only once the event is
 * committed, 500 when the disk refuses the write, and a refused write leaves nothing behind.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { type BuiltServer, startBuiltServer } from '#tests/support/built-server';
import { eventId, send } from '#tests/support/envelopes';
import { readInbox } from '#tests/support/inbox-database';

const TUNNEL = '/monitoring?o=0&p=1';
const servers: BuiltServer[] = [];
const freshInbox = () => join(mkdtempSync(join(tmpdir(), 'tunnel-writes-')), 'inbox');

/**
 * An error event of about `size` bytes as stored: in breadcrumbs of 8 KB each, which is what
 * ingest keeps of a breadcrumb message (Relay's limit), up to 100 of them.
 */
function errorEnvelope(id: string, size: number): Buffer {
  const crumbs = Math.min(100, Math.floor(size / 8_000));
  const event = JSON.stringify({
    event_id: id,
    level: 'error',
    exception: { values: [{ type: 'Error', value: 'boom' }] },
    breadcrumbs: Array.from({ length: crumbs }, (_, i) => ({
      message: `${i} ${'x'.repeat(7_990)}`,
      timestamp: Date.now() / 1000,
    })),
  });
  return Buffer.from(
    `${JSON.stringify({ event_id: id, dsn: LOCAL_INBOX_DSN })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(event) })}\n${event}\n`,
  );
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

describe('local inbox writes', () => {
  it('answers 200 to each of many envelopes sent at once, and has every one stored by then', async () => {
    const dir = freshInbox();
    const server = await startBuiltServer({ MONITORING_INBOX_DIR: dir });
    servers.push(server);
    const ids = Array.from({ length: 150 }, () => eventId());
    const answers = await Promise.all(
      ids.map((id, n) =>
        send(`${server.url}${TUNNEL}`, { body: errorEnvelope(id, 1_000 + ((n * 7_919) % 6_000)) }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
    // Answered, so committed: nothing is still on its way to the disk.
    expect(
      readInbox(dir)
        .events.map((event) => event.eventId)
        .sort(),
    ).toEqual([...ids].sort());
  });

  it('answers 500 when the disk refuses a write, keeps nothing of it, and stores the next', async () => {
    const dir = freshInbox();
    const server = await startBuiltServer(
      { MONITORING_INBOX_DIR: dir },
      { fileSizeLimitBytes: 512 * 1024 },
    );
    servers.push(server);
    const small = eventId();
    expect(
      (await send(`${server.url}${TUNNEL}`, { body: errorEnvelope(small, 1_000) })).status,
    ).toBe(200);

    const refused = await send(`${server.url}${TUNNEL}`, {
      body: errorEnvelope(eventId(), 800_000),
    });
    expect(refused.status).toBe(500);
    expect(refused.text).toBe('local inbox failed');
    await server.stderrBarrier();
    expect(server.output()).toMatch(/\[tunnel\] 500 local inbox failed: .*(disk|full|I\/O|EFBIG)/i);

    const next = eventId();
    expect(
      (await send(`${server.url}${TUNNEL}`, { body: errorEnvelope(next, 2_000) })).status,
    ).toBe(200);
    expect(
      readInbox(dir)
        .events.map((event) => event.eventId)
        .sort(),
    ).toEqual([small, next].sort());
  });
});
