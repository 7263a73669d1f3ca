import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openInbox } from '#app/server/inbox/inbox.server';
import { errorEnvelope, sessionEnvelope } from '#tests/fixtures/inbox-envelopes';

const freshDir = () => join(mkdtempSync(join(tmpdir(), 'inbox-unit-')), 'inbox');
const idOf = (n: number) => n.toString(16).padStart(32, '0');
const quiet = { report: () => {} };

describe('the inbox store', () => {
  it('creates its directory and lists appended events newest first', async () => {
    const inbox = openInbox(freshDir(), quiet);
    expect(await inbox.list()).toEqual([]);
    await inbox.append(errorEnvelope({ eventId: idOf(1), message: 'first' }));
    await inbox.append(sessionEnvelope());
    await inbox.append(errorEnvelope({ eventId: idOf(2), message: 'second' }));
    const entries = await inbox.list();
    expect(entries.map((entry) => entry.summary.event?.message ?? 'no event')).toEqual([
      'second',
      'no event',
      'first',
    ]);
    expect(entries[1]?.summary.itemCounts).toEqual({ session: 1 });
  });

  it('stores the bytes exactly as given', async () => {
    const inbox = openInbox(freshDir(), quiet);
    const bytes = errorEnvelope({ message: 'exact ✓ bytes' });
    await inbox.append(bytes);
    const [entry] = await inbox.list();
    const stored = await inbox.read(entry?.id ?? '');
    expect(Buffer.from(stored ?? []).equals(Buffer.from(bytes))).toBe(true);
  });

  it('keeps the newest 1,000 envelopes', async () => {
    const dir = freshDir();
    const inbox = openInbox(dir, quiet);
    // In order, ten at a time: each append takes its (ordered) name before its first await.
    for (let n = 1; n <= 1003; n += 10) {
      const batch = Array.from({ length: Math.min(10, 1004 - n) }, (_, i) => n + i);
      await Promise.all(
        batch.map((k) => inbox.append(errorEnvelope({ eventId: idOf(k), message: `event ${k}` }))),
      );
    }
    const entries = await inbox.list();
    expect(entries).toHaveLength(1000);
    expect(entries[0]?.summary.event?.message).toBe('event 1003');
    expect(entries[999]?.summary.event?.message).toBe('event 4');
    expect(readdirSync(dir).filter((name) => name.endsWith('.envelope'))).toHaveLength(1000);
  }, 60_000);

  it('survives a restart: a new store on the same directory sees the entries', async () => {
    const dir = freshDir();
    const before = openInbox(dir, quiet);
    await before.append(errorEnvelope({ eventId: idOf(7), message: 'kept across restarts' }));
    const after = openInbox(dir, quiet);
    const entries = await after.list();
    expect(entries.map((entry) => entry.summary.event?.eventId)).toEqual([idOf(7)]);
  });

  it('sees envelopes appended by another store instance on the same directory', async () => {
    const dir = freshDir();
    const reader = openInbox(dir, quiet);
    expect(await reader.list()).toEqual([]);
    await openInbox(dir, quiet).append(errorEnvelope({ message: 'from the tunnel bundle' }));
    const entries = await reader.list();
    expect(entries.map((entry) => entry.summary.event?.message)).toEqual([
      'from the tunnel bundle',
    ]);
  });

  it('skips and reports a write that never finished, keeping earlier entries', async () => {
    const dir = freshDir();
    const reports: string[] = [];
    const inbox = openInbox(dir, { report: (message) => reports.push(message) });
    await inbox.append(errorEnvelope({ message: 'complete' }));
    // What a crash mid-write leaves behind: a partial temp file, never renamed into place.
    const torn = join(dir, '.000000000000001-000000-00000000.envelope.tmp');
    writeFileSync(torn, errorEnvelope().subarray(0, 40));
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(torn, anHourAgo, anHourAgo);

    const entries = await inbox.list();
    expect(entries.map((entry) => entry.summary.event?.message)).toEqual(['complete']);
    expect(reports).toEqual([expect.stringContaining('never finished')]);
    expect(readdirSync(dir)).not.toContain('.000000000000001-000000-00000000.envelope.tmp');
  });

  it('leaves a temp file that is still being written alone', async () => {
    const dir = freshDir();
    const reports: string[] = [];
    const inbox = openInbox(dir, { report: (message) => reports.push(message) });
    await inbox.append(errorEnvelope({ message: 'complete' }));
    writeFileSync(join(dir, '.999999999999999-000000-00000000.envelope.tmp'), 'partial');
    await inbox.list();
    expect(reports).toEqual([]);
    expect(readdirSync(dir)).toContain('.999999999999999-000000-00000000.envelope.tmp');
  });

  it('reports a damaged entry once and still lists what could be read', async () => {
    const dir = freshDir();
    const reports: string[] = [];
    const inbox = openInbox(dir, { report: (message) => reports.push(message) });
    await inbox.append(errorEnvelope({ message: 'healthy' }));
    const damaged = '000000000000002-000000-00000000.envelope';
    writeFileSync(join(dir, damaged), '{"event_id":"x"}\n{"type":"attachment","length":99}\nab');

    const entries = await inbox.list();
    await inbox.list();
    expect(entries.map((entry) => entry.summary.event?.message ?? entry.id)).toEqual([
      'healthy',
      damaged,
    ]);
    expect(reports).toEqual([expect.stringContaining(damaged)]);
  });

  it('reports a problem a reader had with an entry once per topic while the entry exists', async () => {
    const dir = freshDir();
    const reports: string[] = [];
    const inbox = openInbox(dir, { report: (message) => reports.push(message) });
    await inbox.append(errorEnvelope({ message: 'shown' }));
    const [entry] = await inbox.list();
    if (!entry) throw new Error('no entry');
    inbox.reportEntry(entry.id, 'frames', 'frames failed (1)');
    inbox.reportEntry(entry.id, 'frames', 'frames failed (2)');
    await inbox.list();
    inbox.reportEntry(entry.id, 'frames', 'frames failed (3)');
    inbox.reportEntry(entry.id, 'other', 'other failed');
    inbox.reportEntry('../not-an-entry', 'frames', 'never');
    expect(reports).toEqual(['frames failed (1)', 'other failed']);

    // Gone and forgotten: a new entry of the same name would be reported again.
    await inbox.clear();
    await inbox.list();
    writeFileSync(join(dir, entry.id), errorEnvelope({ message: 'again' }));
    await inbox.list();
    inbox.reportEntry(entry.id, 'frames', 'frames failed (4)');
    expect(reports).toEqual(['frames failed (1)', 'other failed', 'frames failed (4)']);
  });

  it('never interleaves concurrent appends', async () => {
    const dir = freshDir();
    const writers = [openInbox(dir, quiet), openInbox(dir, quiet)];
    // Messages just within the 8,192-character bound, so the bytes are stored as given.
    const envelopes = Array.from({ length: 60 }, (_, n) =>
      errorEnvelope({ eventId: idOf(n), message: `${n}:${'y'.repeat(8_000)}` }),
    );
    await Promise.all(
      envelopes.map((bytes, n) => (writers[n % 2] as (typeof writers)[0]).append(bytes)),
    );
    const stored = readdirSync(dir)
      .filter((name) => name.endsWith('.envelope'))
      .map((name) => readFileSync(join(dir, name)).toString('base64'))
      .sort();
    const sent = envelopes.map((bytes) => Buffer.from(bytes).toString('base64')).sort();
    expect(stored).toEqual(sent);
  });

  it('makes its directory again when it is deleted while the server runs', async () => {
    const dir = freshDir();
    const inbox = openInbox(dir, quiet);
    await inbox.append(errorEnvelope({ message: 'before' }));
    rmSync(dir, { recursive: true });
    await inbox.append(errorEnvelope({ message: 'after' }));
    const entries = await inbox.list();
    expect(entries.map((entry) => entry.summary.event?.message)).toEqual(['after']);
  });

  it('clears every entry', async () => {
    const inbox = openInbox(freshDir(), quiet);
    await inbox.append(errorEnvelope());
    await inbox.append(sessionEnvelope());
    expect(await inbox.clear()).toBe(2);
    expect(await inbox.list()).toEqual([]);
  });

  it.each(['../etc/passwd', '', 'x.envelope', '/tmp/000000000000001-000000-00000000.envelope'])(
    'reads nothing for the id %j, which it never made',
    async (id) => {
      const inbox = openInbox(freshDir(), quiet);
      expect(await inbox.read(id)).toBeUndefined();
    },
  );
});
