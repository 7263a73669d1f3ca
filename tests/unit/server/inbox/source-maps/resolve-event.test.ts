import { beforeAll, describe, expect, it } from 'vitest';
import { eventDetailOf } from '#app/server/inbox/inbox-event';
import { normaliseEvent } from '#app/server/inbox/normalise-event';
import { createDirectoryMapStore } from '#app/server/inbox/source-maps/directory-map-store.server';
import {
  debugImagesOf,
  firstOfStores,
  type SourceMapStore,
} from '#app/server/inbox/source-maps/map-store';
import {
  type ResolveEventInput,
  resolveEventFrames,
  resolveTopFrame,
  TOP_FRAME_SEARCH,
} from '#app/server/inbox/source-maps/resolve-event';
import {
  buildFixture,
  CHUNK_URL,
  type Fixture,
  LINES,
  ROUTE_FILE,
  writeMapDir,
} from './fixture-build';

let fixture: Fixture;
const EVENT_ID = '0123456789abcdef0123456789abcdef';
const OTHER_ID = '0b6e1f6a-7d2c-4c55-9d77-3c1f0e0a0b01';

beforeAll(async () => {
  fixture = await buildFixture();
});

/**
 * The event as the browser SDK sends it, read back the way the inbox reads it. Only the
 * chunk's frames: the rest of the stack is this test process's own files, which no browser sends.
 */
function inboxInput(debugId: unknown = fixture.map.debugId): ResolveEventInput {
  const frames = fixture.exception.stacktrace?.frames?.filter((f) => f.filename === CHUNK_URL);
  const event = {
    event_id: EVENT_ID,
    exception: { values: [{ ...fixture.exception, stacktrace: { frames } }] },
    debug_meta: { images: [{ type: 'sourcemap', code_file: CHUNK_URL, debug_id: debugId }] },
  };
  // Stored as ingest stores it (normalised), read back as the pages read it.
  const stored = normaliseEvent(event, { eventId: EVENT_ID, receivedAt: new Date() });
  const detail = eventDetailOf(stored, EVENT_ID);
  return { exceptions: detail.exceptions, debugImages: debugImagesOf(stored) };
}

async function storeWith(files: Record<string, string>) {
  return createDirectoryMapStore({ root: await writeMapDir(files) });
}

describe('resolveEventFrames', () => {
  it('resolves the SDK’s frames by debug id and names the top frame of our code', async () => {
    const store = await storeWith({ 'assets/index-Fx1a2b3c.js.map': fixture.mapText });
    const result = await resolveEventFrames(inboxInput(), store);
    expect(result.topFrame).toEqual({
      path: ROUTE_FILE,
      line: LINES.throwInFailWith,
      functionName: 'failWith',
      label: `${ROUTE_FILE}:${LINES.throwInFailWith} in failWith`,
    });
    const [exception] = result.exceptions;
    const shown = exception?.resolutions
      .slice(0, 4)
      .map((r) => r.resolved && [r.path, r.line, r.functionName]);
    expect(shown).toEqual([
      [ROUTE_FILE, LINES.throwInFailWith, 'failWith'],
      [ROUTE_FILE, LINES.callInOnClick, 'onClick'],
      ['fake-lib/index.js', 2, 'invokeHandler'],
      [ROUTE_FILE, LINES.callInRun, 'run'],
    ]);
    expect(exception?.resolutions).toHaveLength(4);
    expect(exception?.groups.slice(0, 4)).toEqual([
      { kind: 'frame', index: 0 },
      { kind: 'frame', index: 1 },
      { kind: 'library', indices: [2] },
      { kind: 'frame', index: 3 },
    ]);
  });

  it('says when the map on disk is another build’s', async () => {
    const store = await storeWith({
      'assets/index-Fx1a2b3c.js.map': JSON.stringify({ ...fixture.map, debugId: OTHER_ID }),
    });
    const result = await resolveEventFrames(inboxInput(), store);
    expect(result.exceptions[0]?.resolutions[0]).toEqual({
      resolved: false,
      reason: 'map for another build',
    });
    expect(result.topFrame).toBeUndefined();
  });

  it('says when there is no map', async () => {
    const result = await resolveEventFrames(inboxInput(), await storeWith({}));
    expect(result.exceptions[0]?.resolutions[0]).toEqual({
      resolved: false,
      reason: 'no map for this file',
    });
  });

  it.each([
    ['no debug image', undefined],
    ['a debug id that is no uuid', '../../../etc/passwd'],
    ['a debug id that is an object', { toString: 'x' }],
  ])('falls back to the chunk name with %s', async (_, debugId) => {
    const store = await storeWith({ 'assets/index-Fx1a2b3c.js.map': fixture.mapText });
    const result = await resolveEventFrames(inboxInput(debugId), store);
    expect(result.topFrame?.label).toBe(`${ROUTE_FILE}:${LINES.throwInFailWith} in failWith`);
  });

  it('asks the store once per map however many frames use it', async () => {
    const store = await storeWith({ 'assets/index-Fx1a2b3c.js.map': fixture.mapText });
    const asked: string[] = [];
    const counting: SourceMapStore = {
      byDebugId: (id) => {
        asked.push(id);
        return store.byDebugId(id);
      },
      byChunkPath: (path) => {
        asked.push(path);
        return store.byChunkPath(path);
      },
    };
    await resolveEventFrames(inboxInput(), counting);
    expect(asked).toEqual([fixture.map.debugId]);
  });

  it('hostile frames each get a reason; nothing throws', async () => {
    const store = await storeWith({ 'assets/index-Fx1a2b3c.js.map': fixture.mapText });
    const frames = [
      { filename: 42, lineno: 1, colno: 1 },
      { filename: CHUNK_URL, lineno: Number.NaN, colno: 1 },
      { filename: CHUNK_URL, lineno: -1, colno: -1 },
      { filename: CHUNK_URL, lineno: 1e308, colno: 1e308 },
      { filename: CHUNK_URL, lineno: 99_999, colno: 1 },
      {
        filename: 'http://localhost:3000/_build/assets/../../../../etc/passwd.js',
        lineno: 1,
        colno: 1,
      },
      { filename: 'http://localhost:3000/__proto__.js', lineno: 1, colno: 1 },
      { filename: 'http://localhost:3000/constructor.js', lineno: 1, colno: 1 },
      { filename: { toString: () => CHUNK_URL }, lineno: 1, colno: 1 },
      null,
      'at onClick (x.js:1:1)',
    ];
    const input = {
      exceptions: [
        { type: 'Error', value: 'x', frames },
        { type: 'Error', value: 'no frames', frames: 'nope' },
      ],
      debugImages: [null, { codeFile: CHUNK_URL, debugId: 'not-a-uuid' }],
    } as unknown as ResolveEventInput;
    const result = await resolveEventFrames(input, store);
    const reasons = result.exceptions[0]?.resolutions.map((r) => !r.resolved && r.reason);
    expect(reasons).toEqual([
      'no file name',
      'no usable position',
      'no usable position',
      'no usable position',
      'position out of range',
      'no map for this file',
      'no map for this file',
      'no map for this file',
      'no file name',
      'no file name',
      'no file name',
    ]);
    expect(result.exceptions[1]?.resolutions).toEqual([]);
  });

  it('a store that fails answers a reason, not an exception', async () => {
    const broken: SourceMapStore = {
      byDebugId: () => Promise.reject(new Error('disk on fire')),
      byChunkPath: () => {
        throw new Error('sync failure');
      },
    };
    const result = await resolveEventFrames(inboxInput(), broken);
    expect(result.exceptions[0]?.resolutions[0]).toEqual({
      resolved: false,
      reason: 'source map could not be read',
    });
    const noImage = await resolveEventFrames(inboxInput(undefined), broken);
    expect(noImage.exceptions[0]?.resolutions[0]).toMatchObject({ resolved: false });
  });
});

describe('a server event (frames Node has mapped already)', () => {
  const SERVER_DIR = '/srv/app/.output/server';
  const serverInput = (frames: unknown[]) =>
    ({
      exceptions: [{ type: 'Error', value: 'loader failed', frames }],
      debugImages: [],
    }) as unknown as ResolveEventInput;
  /** Answers every lookup with the fixture's map: a frame looked up at all comes back wrong. */
  const anyMap = async (): Promise<SourceMapStore> => {
    const store = await storeWith({ 'assets/index-Fx1a2b3c.js.map': fixture.mapText });
    const found = () => store.byChunkPath('/_build/assets/index-Fx1a2b3c.js');
    return { byDebugId: found, byChunkPath: found };
  };

  it('shows our TypeScript and packages as Node named them, project-relative, never through a map', async () => {
    const frames = [
      { filename: '/srv/app/app/routes/x/ssr-error.tsx', function: 'loader', lineno: 7, colno: 11 },
      {
        filename: '/srv/app/node_modules/@tanstack/router-core/dist/esm/router.js',
        lineno: 1,
        colno: 3,
      },
      { filename: 'node:internal/process/task_queues', function: 'run', lineno: 95, colno: 5 },
    ];
    const result = await resolveEventFrames(serverInput(frames), await anyMap(), {
      projectRoot: '/srv/app',
      serverOutputDir: SERVER_DIR,
    });
    expect(result.topFrame?.label).toBe('app/routes/x/ssr-error.tsx:7 in loader');
    expect(
      result.exceptions[0]?.resolutions.map((r) => r.resolved && [r.path, r.line, r.library]),
    ).toEqual([
      ['app/routes/x/ssr-error.tsx', 7, false],
      ['@tanstack/router-core/dist/esm/router.js', 1, true],
      ['node:internal/process/task_queues', 95, true],
    ]);
    expect(result.exceptions[0]?.groups).toEqual([
      { kind: 'frame', index: 0 },
      { kind: 'library', indices: [1, 2] },
    ]);
  });

  it('still maps a chunk of the built server that Node left unmapped', async () => {
    const [chunkFrame] = inboxInput().exceptions[0]?.frames ?? [];
    const frame = { ...chunkFrame, filename: `${SERVER_DIR}/chunks/build/index-Fx1a2b3c.js` };
    const result = await resolveEventFrames(serverInput([frame]), await anyMap(), {
      serverOutputDir: SERVER_DIR,
    });
    expect(result.topFrame?.path).toBe(ROUTE_FILE);
  });
});

describe('resolveTopFrame', () => {
  it('gives the same line as the whole event, from the frames nearest the throw', async () => {
    const store = await storeWith({ 'assets/index-Fx1a2b3c.js.map': fixture.mapText });
    const whole = await resolveEventFrames(inboxInput(), store);
    expect(await resolveTopFrame(inboxInput(), store)).toEqual(whole.topFrame);
  });

  it(`looks at no more than ${TOP_FRAME_SEARCH} frames`, async () => {
    const input = inboxInput();
    const [thrown] = input.exceptions;
    if (!thrown) throw new Error('no exception');
    const library = {
      filename: 'http://localhost:3000/_build/assets/vendor-x.js',
      lineno: 1,
      colno: 1,
      inApp: false,
    };
    const buried = {
      ...input,
      exceptions: [
        { ...thrown, frames: [...Array(TOP_FRAME_SEARCH).fill(library), ...thrown.frames] },
      ],
    };
    const store = await storeWith({ 'assets/index-Fx1a2b3c.js.map': fixture.mapText });
    expect(await resolveTopFrame(buried, store)).toBeUndefined();
    expect((await resolveEventFrames(buried, store)).topFrame?.path).toBe(ROUTE_FILE);
  });
});

describe('firstOfStores', () => {
  const miss = (reason: string): SourceMapStore => ({
    byDebugId: async () => ({ found: false, reason }),
    byChunkPath: async () => ({ found: false, reason }),
  });

  it('answers with the first store that finds the map (client maps, then server maps)', async () => {
    const store = await storeWith({ 'chunks/_/index.mjs.map': fixture.mapText });
    const both = firstOfStores([miss('no map for this file'), store]);
    expect(await both.byChunkPath('/srv/.output/server/chunks/_/index.mjs')).toMatchObject({
      found: true,
    });
  });

  it('keeps the more telling reason when none finds it', async () => {
    const both = firstOfStores([miss('map larger than 50 MB'), miss('no map for this file')]);
    expect(await both.byDebugId(OTHER_ID)).toEqual({
      found: false,
      reason: 'map larger than 50 MB',
    });
  });
});
