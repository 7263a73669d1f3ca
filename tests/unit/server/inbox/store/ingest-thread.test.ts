/**
 * The ingest thread's main-thread side (app/server/inbox/store/ingest-thread.server.ts) with a
 * stand-in thread that answers in order (tests/fixtures/ingest-echo-worker.mjs): envelopes are
 * handed on a few at a time, the clients in rounds; a client past its share and an envelope
 * that waited too long are refused at once, with the codes the tunnel answers 429 and 503 to.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ingestErrorCode } from '#app/server/inbox/store/ingest-protocol';
import {
  createIngestThread,
  type IngestThread,
} from '#app/server/inbox/store/ingest-thread.server';

const ECHO = fileURLToPath(new URL('../../../../fixtures/ingest-echo-worker.mjs', import.meta.url));
const encoder = new TextEncoder();

let thread: IngestThread | undefined;
afterEach(async () => {
  await thread?.close();
  thread = undefined;
});

function start(limits: { maxPending?: number; perClient?: number; maxWaitMs?: number }) {
  thread = createIngestThread({
    databasePath: ':unused:',
    maxEvents: 1,
    maxMb: 8,
    workerFile: ECHO,
    maxInThread: 1,
    ...limits,
  });
  return thread;
}

/** Ingests `name` for `client`; resolves with what happened to it, in the order it happened. */
function ingest(target: IngestThread, client: string, name: string, log: string[]) {
  return target.ingest(encoder.encode(name), Date.now(), client).then(
    (stored) => log.push(`stored ${stored.eventId}`),
    (error: unknown) => log.push(`${ingestErrorCode(error)} ${name}`),
  );
}

describe('createIngestThread: the queue shared fairly', () => {
  it('hands a newcomer’s envelope on in the round being served, not behind a flood', async () => {
    const target = start({});
    const log: string[] = [];
    const flood = Array.from({ length: 20 }, (_, i) => ingest(target, 'a', `a${i}`, log));
    const visitor = ingest(target, 'v', 'v0', log);
    await Promise.all([...flood, visitor]);
    // One was with the thread already; the visitor's came next, before the flood's 19 others.
    expect(log.slice(0, 3)).toEqual(['stored a0', 'stored v0', 'stored a1']);
    expect(log).toHaveLength(21);
  });

  it('refuses a client past its share (over-share), and pushes out the longest line’s newest for another', async () => {
    const target = start({ maxPending: 4, perClient: 3 });
    const log: string[] = [];
    // a0 goes to the thread; a1–a3 wait (a's share), a4 is refused.
    const calls = ['a0', 'a1', 'a2', 'a3', 'a4'].map((name) => ingest(target, 'a', name, log));
    // One place left: b0 takes it; b1 finds the queue full and a with 3 waiting, b with 1.
    calls.push(ingest(target, 'b', 'b0', log), ingest(target, 'b', 'b1', log));
    await Promise.all(calls);
    expect(log.filter((line) => !line.startsWith('stored'))).toEqual([
      'over-share a4',
      'over-share a3',
    ]);
    expect(log.filter((line) => line.startsWith('stored'))).toHaveLength(5);
  });

  it('refuses an envelope that waited too long for its turn as busy, and stores the others', async () => {
    const target = start({ maxWaitMs: 1 });
    const log: string[] = [];
    // Queued in one turn: the first goes to the thread, the rest wait longer than 1 ms for it.
    const calls = Array.from({ length: 50 }, (_, i) => ingest(target, 'a', `a${i}`, log));
    await Promise.all(calls);
    // The thread takes tens of ms to start: a0 was handed to it at once, the others waited.
    expect(log).toContain('stored a0');
    const refused = log.filter((line) => line.startsWith('busy '));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length + log.filter((line) => line.startsWith('stored ')).length).toBe(50);
    expect(target.pending()).toBe(0);
  });
});
