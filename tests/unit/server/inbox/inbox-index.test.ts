/**
 * The store's index: appends add their own summary, readers after a start share one load,
 * and one bad entry never takes the list down.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { splitEnvelope } from '#app/server/inbox/envelope';
import { openInbox } from '#app/server/inbox/inbox.server';
import { entryName } from '#app/server/inbox/inbox-file-names';
import { envelopeBytes, errorEnvelope, errorEvent } from '#tests/fixtures/inbox-envelopes';

// Counts the store's file reads, path by path.
const reads = vi.hoisted(() => new Map<string, number>());
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    readFile: (path: string, ...rest: unknown[]) => {
      reads.set(String(path), (reads.get(String(path)) ?? 0) + 1);
      return (actual.readFile as (...args: unknown[]) => Promise<unknown>)(path, ...rest);
    },
  };
});

const freshDir = () => join(mkdtempSync(join(tmpdir(), 'inbox-index-')), 'inbox');
const idOf = (n: number) => n.toString(16).padStart(32, '0');
const quiet = { report: () => {} };
/** Envelope files in a fresh directory, named as the store names them. */
function seedInbox(envelopes: Uint8Array[]): string {
  const dir = freshDir();
  mkdirSync(dir, { recursive: true });
  const start = Date.now() - envelopes.length * 1000;
  envelopes.forEach((bytes, index) => {
    writeFileSync(join(dir, entryName(start + index * 1000, index, index)), bytes);
  });
  return dir;
}
const entryFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.envelope'));

beforeEach(() => reads.clear());

describe('the inbox index', () => {
  it('lists a burst of appends without reading a file', async () => {
    const dir = freshDir();
    const inbox = openInbox(dir, quiet);
    await inbox.list();
    await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        inbox.append(errorEnvelope({ eventId: idOf(n), message: `burst ${n}` })),
      ),
    );
    const entries = await inbox.list();
    expect(entries).toHaveLength(20);
    expect(new Set(entries.map((entry) => entry.summary.event?.message)).size).toBe(20);
    expect(reads.size).toBe(0);
  });

  it('reads each file once at start, however many readers ask at once', async () => {
    const dir = seedInbox(
      Array.from({ length: 40 }, (_, n) => errorEnvelope({ eventId: idOf(n), message: `${n}` })),
    );
    const inbox = openInbox(dir, quiet);
    const lists = await Promise.all(Array.from({ length: 4 }, () => inbox.list()));
    for (const entries of lists) expect(entries).toHaveLength(40);
    expect(reads.size).toBe(40);
    expect([...reads.values()].every((count) => count === 1)).toBe(true);
    await inbox.list();
    expect([...reads.values()].every((count) => count === 1)).toBe(true);
  });

  it('still sees what another process writes and deletes', async () => {
    const dir = freshDir();
    const inbox = openInbox(dir, quiet);
    await inbox.append(errorEnvelope({ eventId: idOf(1), message: 'ours' }));
    await openInbox(dir, quiet).append(errorEnvelope({ eventId: idOf(2), message: 'theirs' }));
    expect((await inbox.list()).map((entry) => entry.summary.event?.message)).toEqual([
      'theirs',
      'ours',
    ]);
    const ours = (await inbox.list())[1]?.id ?? '';
    rmSync(join(dir, ours));
    expect((await inbox.list()).map((entry) => entry.summary.event?.message)).toEqual(['theirs']);
  });

  it('forgets pruned and cleared entries', async () => {
    const inbox = openInbox(freshDir(), { ...quiet, limit: 3 });
    for (let n = 1; n <= 5; n++) {
      await inbox.append(errorEnvelope({ eventId: idOf(n), message: `event ${n}` }));
    }
    expect((await inbox.list()).map((entry) => entry.summary.event?.message)).toEqual([
      'event 5',
      'event 4',
      'event 3',
    ]);
    expect(await inbox.clear()).toBe(3);
    expect(await inbox.list()).toEqual([]);
  });

  it('lists the other entries when one cannot be read or summarised', async () => {
    const reports: string[] = [];
    const dir = seedInbox([
      errorEnvelope({ eventId: idOf(1), message: 'fine' }),
      // String() of this tag value throws: it once made every list fail.
      envelopeBytes({}, [
        {
          header: { type: 'event' },
          payload: { ...errorEvent({ eventId: idOf(2) }), tags: { digest: { toString: 1 } } },
        },
      ]),
    ]);
    // A directory with an entry's name: reading it fails with EISDIR.
    mkdirSync(join(dir, '000000000000001-000000-00000000.envelope'));
    const inbox = openInbox(dir, { report: (message) => reports.push(message) });
    const entries = await inbox.list();
    expect(entries.map((entry) => entry.summary.event?.eventId)).toEqual([idOf(2), idOf(1)]);
    await inbox.list();
    expect(reports).toEqual([expect.stringContaining('could not be read')]);
  });

  it('stores events bounded, not as they were sent', async () => {
    const dir = freshDir();
    const inbox = openInbox(dir, quiet);
    const frames = Array.from({ length: 349_000 }, () => ({}));
    const event = {
      ...errorEvent({ eventId: idOf(9) }),
      exception: { values: [{ type: 'Error', value: 'many frames', stacktrace: { frames } }] },
    };
    await inbox.append(envelopeBytes({}, [{ header: { type: 'event' }, payload: event }]));
    const [name] = entryFiles(dir);
    const stored = readFileSync(join(dir, name ?? ''));
    expect(stored.length).toBeLessThan(5_000);
    const payload = JSON.parse(
      Buffer.from(splitEnvelope(stored).items[0]?.payload ?? []).toString(),
    );
    expect(payload.exception.values[0].stacktrace.frames).toHaveLength(50);
  });

  it('keeps an append that finishes while a listing runs', async () => {
    const dir = freshDir();
    const inbox = openInbox(dir, quiet);
    await Promise.all(
      Array.from({ length: 10 }, (_, n) => inbox.append(errorEnvelope({ eventId: idOf(n) }))),
    );
    const listing = inbox.list();
    await inbox.append(errorEnvelope({ eventId: idOf(99), message: 'during a listing' }));
    await listing;
    const entries = await inbox.list();
    expect(entries).toHaveLength(11);
    expect(entries[0]?.summary.event?.message).toBe('during a listing');
  });
});
