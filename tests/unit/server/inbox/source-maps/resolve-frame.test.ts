/**
 * Tests of resolve-frame, one section per part of the module, in its order.
 */
import { eachMapping, TraceMap } from '@jridgewell/trace-mapping';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventDetailOf } from '#app/server/inbox/inbox-event';
import { normaliseEvent } from '#app/server/inbox/normalise-event';
import {
  createDirectoryMapStore,
  debugImagesOf,
  firstOfStores,
  type SourceMapStore,
} from '#app/server/inbox/source-maps/map-store.server';
import {
  functionNameOf,
  MAX_CONTEXT_LINE,
  type ResolveEventInput,
  resolveEventFrames,
  resolveFrame,
  resolveTopFrame,
  SourceLines,
  shownSource,
  TOP_FRAME_SEARCH,
} from '#app/server/inbox/source-maps/resolve-frame';
import {
  buildFixture,
  CHUNK_URL,
  type Fixture,
  LINES,
  ROUTE_FILE,
  ROUTE_SOURCE,
  writeMapDir,
} from './fixture-build';

let fixture: Fixture;
let map: TraceMap;
/** The SDK's frames that are in the chunk, most recent call first: failWith, onClick, lib, run. */
let chunkFrames: Array<{ filename?: string; function?: string; lineno?: number; colno?: number }>;

beforeAll(async () => {
  fixture = await buildFixture();
  map = new TraceMap(fixture.map as never);
  chunkFrames = (fixture.exception.stacktrace?.frames ?? [])
    .filter((f) => f.filename === CHUNK_URL)
    .reverse();
});

const routeLine = (line: number) => ROUTE_SOURCE.split('\n')[line - 1];

describe('resolveFrame through a real Vite-built map', () => {
  it('puts the throwing frame at its original line, with the five lines around it', () => {
    expect(chunkFrames).toHaveLength(4);
    const result = resolveFrame(map, chunkFrames[0] ?? {});
    expect(result).toMatchObject({
      resolved: true,
      path: ROUTE_FILE,
      line: LINES.throwInFailWith,
      library: false,
      context: {
        pre: [routeLine(LINES.throwInFailWith - 2), routeLine(LINES.throwInFailWith - 1)],
        line: routeLine(LINES.throwInFailWith),
        post: [routeLine(LINES.throwInFailWith + 1), routeLine(LINES.throwInFailWith + 2)],
      },
    });
    expect(routeLine(LINES.throwInFailWith)).toContain('throw new Error(');
    // V8 points at `new`: the 1-based column of "new" in the original line, not one off.
    expect(result.resolved && result.column).toBe(
      (routeLine(LINES.throwInFailWith) ?? '').indexOf('new') + 1,
    );
  });

  it('every mapping of the chunk is found at its own 1-based column, none at a neighbour’s', () => {
    // A column passed without converting (1-based read as 0-based) lands one character to the
    // right: for a mapping with a neighbour starting there, that is the neighbour's position.
    const segments: Array<{ column: number; line: number; originalColumn: number }> = [];
    eachMapping(map, (m) => {
      if (m.generatedLine === 1 && m.source !== null) {
        segments.push({
          column: m.generatedColumn,
          line: m.originalLine,
          originalColumn: m.originalColumn,
        });
      }
    });
    const columns = new Set(segments.map((segment) => segment.column));
    expect(segments.some((segment) => columns.has(segment.column + 1))).toBe(true);
    for (const segment of segments) {
      const result = resolveFrame(map, {
        filename: CHUNK_URL,
        lineno: 1,
        colno: segment.column + 1,
      });
      expect(result).toMatchObject({ line: segment.line, column: segment.originalColumn + 1 });
    }
  });

  it('names the function: the engine name when it is not minified, else the caller’s call site', () => {
    const [failWith, onClick, library, run] = chunkFrames.map((frame) => resolveFrame(map, frame));
    // onClick called failWith (minified to one letter): its call site names it.
    const fromCaller = onClick?.resolved ? onClick.nameAtPosition : undefined;
    expect(resolveFrame(map, chunkFrames[0] ?? {}, { callerName: fromCaller })).toMatchObject({
      functionName: 'failWith',
    });
    // V8 named the arrow from its property, which no minifier renames.
    expect(onClick).toMatchObject({ functionName: 'onClick', line: LINES.callInOnClick });
    expect(library).toMatchObject({ path: 'fake-lib/index.js', line: 2, library: true });
    expect(run).toMatchObject({ path: ROUTE_FILE, line: LINES.callInRun, functionName: 'run' });
    expect(failWith?.resolved && failWith.functionName).toMatch(/^[a-z]$/);
  });

  it.each([
    ['a line past the chunk', { lineno: 2, colno: 1 }, 'position out of range'],
    ['a huge line', { lineno: 2 ** 52, colno: 1 }, 'position out of range'],
    ['line 0', { lineno: 0, colno: 1 }, 'no usable position'],
    ['a negative column', { lineno: 1, colno: -5 }, 'no usable position'],
    ['NaN', { lineno: Number.NaN, colno: 1 }, 'no usable position'],
    ['before the first mapping', { lineno: 1, colno: 1 }, 'position out of range'],
  ])('%s is not resolved', (_, position, reason) => {
    expect(resolveFrame(map, { filename: CHUNK_URL, ...position })).toEqual({
      resolved: false,
      reason,
    });
  });

  it('a huge column on a real line maps to the line’s last mapping, as Sentry does', () => {
    const result = resolveFrame(map, { filename: CHUNK_URL, lineno: 1, colno: 2 ** 40 });
    expect(result.resolved).toBe(true);
  });

  it.each([
    ['a source index past the sources', { sources: [], mappings: 'AAAA,SAAS' }],
    ['a negative original line', { sources: ['dsn.ts'], mappings: 'AA/////DAAA' }],
    ['a generated column far negative', { sources: ['dsn.ts'], mappings: '////' }],
    ['a name index past the names', { sources: ['dsn.ts'], mappings: 'AAAAgB' }],
  ])('garbage mappings (%s): unresolved or sane, never thrown', (_, raw) => {
    const garbage = new TraceMap({ version: 3, names: [], ...raw } as never);
    const result = resolveFrame(garbage, { filename: CHUNK_URL, lineno: 1, colno: 5 });
    if (result.resolved) {
      expect(result.line).toBeGreaterThanOrEqual(1);
      expect(result.nameAtPosition).toBeUndefined();
    } else {
      expect(result.reason).toMatch(/unreadable source map|position out of range/);
    }
  });

  it('random mapping strings never throw', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/,;!@#';
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 300; round += 1) {
      const mappings = Array.from(
        { length: 40 },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join('');
      const garbage = new TraceMap({
        version: 3,
        sources: ['dsn.ts'],
        names: ['x'],
        mappings,
      } as never);
      expect(() =>
        resolveFrame(garbage, { filename: CHUNK_URL, lineno: 1 + (round % 3), colno: 1 + round }),
      ).not.toThrow();
    }
  });

  it('a source with no sourcesContent resolves without context', () => {
    const bare = new TraceMap({ ...fixture.map, sourcesContent: undefined } as never);
    expect(resolveFrame(bare, chunkFrames[0] ?? {})).toMatchObject({
      resolved: true,
      context: null,
    });
  });
});

describe('functionNameOf', () => {
  it.each([
    ['an original name', 'onClick', 'handler', 'onClick'],
    ['a method path', 'HTMLButtonElement.onClick', undefined, 'HTMLButtonElement.onClick'],
    ['a minified name with a caller', 'u', 'failWith', 'failWith'],
    ['a minified name alone', 'u', undefined, 'u'],
    ['a minified name with an alias', 'Module.i [as run]', undefined, 'run'],
    ['a short original name the map lists', 'go', 'other', 'go'],
    ['Sentry’s unknown function', '?', 'failWith', 'failWith'],
    ['no name at all', undefined, undefined, undefined],
    ['not a string', { toString: (): string => 'x' }, undefined, undefined],
  ])('%s', (_, own, caller, expected) => {
    expect(functionNameOf(own, caller, ['go', 'failWith'])).toBe(expected);
  });
});

const SOURCE = ['one', 'two', 'three', 'four', 'five', 'six', 'seven'].join('\n');

describe('SourceLines#context', () => {
  it.each([
    ['the middle', 4, { pre: ['two', 'three'], line: 'four', post: ['five', 'six'] }],
    ['the first line', 1, { pre: [], line: 'one', post: ['two', 'three'] }],
    ['the second line', 2, { pre: ['one'], line: 'two', post: ['three', 'four'] }],
    ['the last line', 7, { pre: ['five', 'six'], line: 'seven', post: [] }],
    ['past the end', 8, undefined],
    ['far past the end', 1e9, undefined],
  ])('%s', (_, line, expected) => {
    expect(new SourceLines(SOURCE).context(line)).toEqual(expected);
  });

  it('drops Windows line ends and cuts a minified line', () => {
    const context = new SourceLines(`a\r\n${'x'.repeat(100_000)}\r\nc`).context(2);
    expect(context?.pre).toEqual(['a']);
    expect(context?.line).toHaveLength(MAX_CONTEXT_LINE + 1);
    expect(context?.post).toEqual(['c']);
  });
});

describe('shownSource', () => {
  it.each([
    [
      'relative to the map',
      '../../app/routes/ErrorFallback.tsx',
      'app/routes/ErrorFallback.tsx',
      false,
    ],
    [
      'Vite client map',
      '../app/routes/sentry-example-page/index.tsx',
      'app/routes/sentry-example-page/index.tsx',
      false,
    ],
    [
      'webpack with a namespace',
      'webpack://my-app/./app/routes/ErrorFallback.tsx',
      'app/routes/ErrorFallback.tsx',
      false,
    ],
    ['webpack without one', 'webpack:///./app/routes/index.tsx', 'app/routes/index.tsx', false],
    [
      'absolute from the build machine',
      '/home/ci/project/app/routes/ErrorFallback.tsx',
      'app/routes/ErrorFallback.tsx',
      false,
    ],
    [
      'file URL',
      'file:///home/ci/project/app/server/env.server.ts',
      'app/server/env.server.ts',
      false,
    ],
    [
      'Windows path',
      'C:\\ci\\project\\app\\routes\\ErrorFallback.tsx',
      'app/routes/ErrorFallback.tsx',
      false,
    ],
    ['cannot climb above the start', '../../../../etc/passwd', 'etc/passwd', false],
    [
      'a library',
      '../../node_modules/react-dom/cjs/react-dom-client.production.js',
      'react-dom/cjs/react-dom-client.production.js',
      true,
    ],
    [
      'a scoped library',
      'webpack://x/./node_modules/@tanstack/react-router/dist/esm/link.js',
      '@tanstack/react-router/dist/esm/link.js',
      true,
    ],
    [
      'a library inside a library: the innermost package',
      '/p/node_modules/a/node_modules/b/index.js',
      'b/index.js',
      true,
    ],
    ['a Rollup virtual module', '\0commonjsHelpers.js', 'commonjsHelpers.js', true],
    ['a Vite helper', 'vite/preload-helper.js', 'vite/preload-helper.js', true],
    [
      "the router's code-split route (a query on the module id)",
      '../../../../../app/routes/sentry-example-page/index.tsx?tsr-split=component',
      'app/routes/sentry-example-page/index.tsx',
      false,
    ],
    ['a Vite asset import', '../../app/styles/app.css?url', 'app/styles/app.css', false],
    ['a fragment', 'webpack://x/./app/ErrorFallback.tsx#L1', 'app/ErrorFallback.tsx', false],
  ])('%s', (_, source, path, library) => {
    expect(shownSource(source)).toEqual({ path, library });
  });

  it('shows an absolute source relative to the project root when given', () => {
    // Without the root, the first "app/" folder would be the parent one.
    expect(
      shownSource('/srv/app/project/app/routes/ErrorFallback.tsx', {
        projectRoot: '/srv/app/project',
      }),
    ).toEqual({
      path: 'app/routes/ErrorFallback.tsx',
      library: false,
    });
  });

  it('counts a source on the map ignore list as a library', () => {
    expect(shownSource('../lib/vendored.js', { ignored: true })).toEqual({
      path: 'lib/vendored.js',
      library: true,
    });
  });

  it('cuts a very long path', () => {
    const { path } = shownSource(`app/${'a/'.repeat(500)}triage.ts`);
    expect(path.length).toBeLessThanOrEqual(257);
    expect(path.endsWith('…')).toBe(true);
  });
});

describe('a whole event', () => {
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
        {
          filename: '/srv/app/app/routes/x/ssr-error.tsx',
          function: 'loader',
          lineno: 7,
          colno: 11,
        },
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
});
