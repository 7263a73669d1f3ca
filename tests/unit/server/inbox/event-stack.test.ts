import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  FAILED_REASON,
  NO_BUILD_REASON,
  stackForDetail,
  topFramesFor,
} from '#app/server/inbox/event-stack.server';
import { type LocalInbox, openInbox } from '#app/server/inbox/inbox.server';
import { readEventDetail } from '#app/server/inbox/inbox-event';
import type { BuildMaps } from '#app/server/inbox/source-maps/build-maps.server';
import { createDirectoryMapStore } from '#app/server/inbox/source-maps/directory-map-store.server';
import { LruCache } from '#app/server/inbox/source-maps/lru-cache';
import { envelopeBytes } from '#tests/fixtures/inbox-envelopes';
import {
  buildFixture,
  CHUNK_URL,
  type Fixture,
  LINES,
  ROUTE_FILE,
  writeMapDir,
} from './source-maps/fixture-build';

let fixture: Fixture;
let maps: BuildMaps;

beforeAll(async () => {
  fixture = await buildFixture();
  const root = await writeMapDir({ '_build/assets/index-Fx1a2b3c.js.map': fixture.mapText });
  maps = {
    store: createDirectoryMapStore({ root }),
    projectRoot: fixture.projectDir,
    serverOutputDir: '/nowhere/.output/server',
  };
});

/** The fixture chunk's error as the browser SDK sends it, stored in a fresh inbox. */
async function storedEvents(count: number) {
  const reports: string[] = [];
  const inbox = openInbox(join(mkdtempSync(join(tmpdir(), 'event-stack-')), 'inbox'), {
    report: (message) => reports.push(message),
  });
  const frames = fixture.exception.stacktrace?.frames?.filter((f) => f.filename === CHUNK_URL);
  for (let n = 0; n < count; n += 1) {
    const eventId = String(n).padStart(32, '0');
    const event = {
      event_id: eventId,
      exception: { values: [{ ...fixture.exception, stacktrace: { frames } }] },
      debug_meta: {
        images: [{ type: 'sourcemap', code_file: CHUNK_URL, debug_id: fixture.map.debugId }],
      },
    };
    await inbox.append(
      envelopeBytes({ event_id: eventId }, [{ header: { type: 'event' }, payload: event }]),
    );
  }
  const entries = await inbox.list();
  return { inbox, reports, ids: entries.map((entry) => entry.id) };
}

async function detailOf(inbox: LocalInbox, id: string) {
  const bytes = await inbox.read(id);
  const read = bytes && readEventDetail(bytes, id);
  if (!read) throw new Error('no event');
  return read;
}

describe('stackForDetail', () => {
  it('resolves every frame through the maps, our frames with their source', async () => {
    const { inbox, ids } = await storedEvents(1);
    const id = ids[0] as string;
    const { detail, event } = await detailOf(inbox, id);
    const [exception] = await stackForDetail(inbox, id, detail.exceptions, event, { maps });
    expect(exception?.runs[0]).toMatchObject({
      kind: 'frame',
      frame: {
        file: ROUTE_FILE,
        line: LINES.throwInFailWith,
        functionName: 'failWith',
        context: { line: expect.stringContaining('throw new Error') },
      },
    });
    expect(exception?.runs.some((run) => run.kind === 'library')).toBe(true);
  });

  it('falls back to the stack as it came when resolution throws, and says so once', async () => {
    const { inbox, ids, reports } = await storedEvents(1);
    const id = ids[0] as string;
    const { detail, event } = await detailOf(inbox, id);
    const resolve = () => {
      throw new Error('a bug in the resolver');
    };
    for (let view = 0; view < 2; view += 1) {
      const [exception] = await stackForDetail(inbox, id, detail.exceptions, event, {
        maps,
        resolve,
      });
      expect(exception?.runs[0]).toEqual({
        kind: 'frame',
        frame: expect.objectContaining({ file: CHUNK_URL, reason: FAILED_REASON }),
      });
    }
    expect(reports).toEqual([
      expect.stringContaining(
        `entry ${id}: its frames could not be resolved (a bug in the resolver)`,
      ),
    ]);
  });

  it('without a build (vinxi dev) shows every frame as it came, with the reason', async () => {
    const { inbox, ids } = await storedEvents(1);
    const id = ids[0] as string;
    const { detail, event } = await detailOf(inbox, id);
    const [exception] = await stackForDetail(inbox, id, detail.exceptions, event, {
      maps: undefined,
    });
    expect(
      exception?.runs.every((run) => run.kind === 'frame' && run.frame.reason === NO_BUILD_REASON),
    ).toBe(true);
  });
});

describe('topFramesFor', () => {
  const counting = (inbox: LocalInbox, read: string[]) => ({
    reportEntry: inbox.reportEntry,
    read: (id: string) => {
      read.push(id);
      return inbox.read(id);
    },
  });

  it('names the top frame of our code for the entries asked, reading each once', async () => {
    const { inbox, ids } = await storedEvents(3);
    const read: string[] = [];
    const cache = new LruCache<string, string | null>(10, Number.POSITIVE_INFINITY);
    const asked = ids.slice(0, 2);
    const labels = await topFramesFor(counting(inbox, read), asked, { maps, cache });
    expect([...labels.entries()]).toEqual(
      asked.map((id) => [id, `${ROUTE_FILE}:${LINES.throwInFailWith} in failWith`]),
    );
    expect(read).toEqual(asked);
    await topFramesFor(counting(inbox, read), asked, { maps, cache });
    expect(read).toEqual(asked);
  });

  it('a failure leaves the event without a line, reported once and not retried', async () => {
    const { inbox, ids, reports } = await storedEvents(1);
    const cache = new LruCache<string, string | null>(10, Number.POSITIVE_INFINITY);
    const resolveTop = () => Promise.reject(new Error('disk on fire'));
    for (let view = 0; view < 2; view += 1) {
      expect((await topFramesFor(inbox, ids, { maps, cache, resolveTop })).size).toBe(0);
    }
    expect(reports).toEqual([
      expect.stringContaining('its top frame could not be resolved (disk on fire)'),
    ]);
  });

  it('without a build names none and reads nothing', async () => {
    const { inbox, ids } = await storedEvents(1);
    const read: string[] = [];
    expect((await topFramesFor(counting(inbox, read), ids, { maps: undefined })).size).toBe(0);
    expect(read).toEqual([]);
  });
});
