/**
 * Tests of event-stack, one section per part of the module, in its order.
 */
import { LRUCache } from 'lru-cache';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  FAILED_REASON,
  NO_BUILD_REASON,
  type StoredEventRef,
  stackAsItCame,
  stackForDetail,
  stackViewOf,
  topFramesFor,
} from '#app/server/inbox/event-stack.server';
import { type ExceptionDetail, exceptionsOf } from '#app/server/inbox/inbox-event';
import {
  type BuildMaps,
  createDirectoryMapStore,
} from '#app/server/inbox/source-maps/map-store.server';
import type { ResolvedEvent } from '#app/server/inbox/source-maps/resolve-frame';
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

/** The fixture chunk's error as the browser SDK sends it, as stored payloads by event id. */
function storedEvents(count: number) {
  const frames = fixture.exception.stacktrace?.frames?.filter((f) => f.filename === CHUNK_URL);
  const payloads = new Map<string, string>();
  for (let n = 0; n < count; n += 1) {
    const eventId = String(n).padStart(32, '0');
    const event = {
      event_id: eventId,
      exception: { values: [{ ...fixture.exception, stacktrace: { frames } }] },
      debug_meta: {
        images: [{ type: 'sourcemap', code_file: CHUNK_URL, debug_id: fixture.map.debugId }],
      },
    };
    payloads.set(eventId, JSON.stringify(event));
  }
  const reports: string[] = [];
  const report = (_id: string, _topic: string, message: string) => reports.push(message);
  return { payloads, ids: [...payloads.keys()], reports, report };
}

function detailOf(payloads: Map<string, string>, id: string) {
  const event = JSON.parse(payloads.get(id) as string) as Record<string, unknown>;
  return { exceptions: exceptionsOf(event), event };
}

describe('stackForDetail', () => {
  it('resolves every frame through the maps, our frames with their source', async () => {
    const { payloads, ids } = storedEvents(1);
    const id = ids[0] as string;
    const { exceptions, event } = detailOf(payloads, id);
    const [exception] = await stackForDetail(id, exceptions, event, { maps });
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

  it('falls back to the stack as it came when resolution throws, and logs it once per event', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { payloads } = storedEvents(1);
    const id = 'e'.repeat(32);
    const { exceptions, event } = detailOf(payloads, String(0).padStart(32, '0'));
    const resolve = () => {
      throw new Error('a bug in the resolver');
    };
    for (let view = 0; view < 2; view += 1) {
      const [exception] = await stackForDetail(id, exceptions, event, { maps, resolve });
      expect(exception?.runs[0]).toEqual({
        kind: 'frame',
        frame: expect.objectContaining({ file: CHUNK_URL, reason: FAILED_REASON }),
      });
    }
    const lines = warn.mock.calls.map((args) => String(args[0]));
    warn.mockRestore();
    expect(lines).toEqual([
      expect.stringContaining(
        `[inbox] event ${id}: its frames could not be resolved (a bug in the resolver)`,
      ),
    ]);
  });

  it('without a build (vinxi dev) shows every frame as it came, with the reason', async () => {
    const { payloads, ids } = storedEvents(1);
    const id = ids[0] as string;
    const { exceptions, event } = detailOf(payloads, id);
    const [exception] = await stackForDetail(id, exceptions, event, { maps: undefined });
    expect(
      exception?.runs.every((run) => run.kind === 'frame' && run.frame.reason === NO_BUILD_REASON),
    ).toBe(true);
  });
});

describe('topFramesFor', () => {
  /** The events asked for, noting each payload read. */
  const refs = (payloads: Map<string, string>, ids: string[], read: string[]): StoredEventRef[] =>
    ids.map((eventId) => ({
      eventId,
      payload: () => {
        read.push(eventId);
        return payloads.get(eventId);
      },
    }));

  it('names the top frame of our code for the events asked, by event id, reading each once', async () => {
    const { payloads, ids } = storedEvents(3);
    const read: string[] = [];
    const cache = new LRUCache<string, string>({ max: 10 });
    const asked = ids.slice(0, 2);
    const labels = await topFramesFor(refs(payloads, asked, read), { maps, cache });
    expect([...labels.entries()]).toEqual(
      asked.map((id) => [id, `${ROUTE_FILE}:${LINES.throwInFailWith} in failWith`]),
    );
    expect(read).toEqual(asked);
    await topFramesFor(refs(payloads, asked, read), { maps, cache });
    expect(read).toEqual(asked);
  });

  it('a failure leaves the event without a line, reported and not retried', async () => {
    const { payloads, ids, reports, report } = storedEvents(1);
    const cache = new LRUCache<string, string>({ max: 10 });
    const resolveTop = () => Promise.reject(new Error('disk on fire'));
    for (let view = 0; view < 2; view += 1) {
      const labels = await topFramesFor(refs(payloads, ids, []), {
        maps,
        cache,
        resolveTop,
        report,
      });
      expect(labels.size).toBe(0);
    }
    expect(reports).toEqual([
      expect.stringContaining('its top frame could not be resolved (disk on fire)'),
    ]);
  });

  it('an event whose payload is gone or not an object gets no line', async () => {
    const payloads = new Map([
      ['a'.repeat(32), '[]'],
      ['b'.repeat(32), 'not json'],
    ]);
    const { reports, report } = storedEvents(0);
    const cache = new LRUCache<string, string>({ max: 10 });
    const ids = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)];
    expect((await topFramesFor(refs(payloads, ids, []), { maps, cache, report })).size).toBe(0);
    expect(reports).toEqual([expect.stringContaining(`event ${'b'.repeat(32)}: its top frame`)]);
  });

  it('without a build names none and reads nothing', async () => {
    const { payloads, ids } = storedEvents(1);
    const read: string[] = [];
    expect((await topFramesFor(refs(payloads, ids, read), { maps: undefined })).size).toBe(0);
    expect(read).toEqual([]);
  });
});

const CONTEXT = { pre: ['a', 'b'], line: 'throw x', post: ['c', 'd'] };
const chunk = (lineno: number, inApp = true) => ({
  filename: 'http://localhost:3000/_build/assets/x.js',
  function: 'q',
  lineno,
  colno: 9,
  inApp,
});

describe('stackViewOf', () => {
  const resolved: ResolvedEvent = {
    exceptions: [
      {
        type: 'Error',
        value: 'boom',
        frames: [chunk(1), chunk(2, false), chunk(3, false), chunk(4)],
        resolutions: [
          {
            resolved: true,
            path: 'app/ErrorFallback.tsx',
            line: 24,
            column: 13,
            functionName: 'onClick',
            context: CONTEXT,
            library: false,
            nameAtPosition: 'fail',
          },
          {
            resolved: true,
            path: 'react-dom/x.js',
            line: 7,
            column: 1,
            context: CONTEXT,
            library: true,
          },
          { resolved: true, path: 'react/y.js', line: 8, column: 2, context: null, library: true },
          { resolved: false, reason: 'no map for this file' },
        ],
        groups: [
          { kind: 'frame', index: 0 },
          { kind: 'library', indices: [1, 2] },
          { kind: 'frame', index: 3 },
        ],
      },
    ],
  };

  it('keeps only what the page shows: our frames with source, library frames without, unresolved as they came', () => {
    expect(stackViewOf(resolved, [])).toEqual([
      {
        type: 'Error',
        value: 'boom',
        runs: [
          {
            kind: 'frame',
            frame: {
              functionName: 'onClick',
              file: 'app/ErrorFallback.tsx',
              line: 24,
              column: 13,
              context: CONTEXT,
              inApp: true,
            },
          },
          {
            kind: 'library',
            frames: [
              { file: 'react-dom/x.js', line: 7, column: 1 },
              { file: 'react/y.js', line: 8, column: 2 },
            ],
          },
          {
            kind: 'frame',
            frame: {
              functionName: 'q',
              file: 'http://localhost:3000/_build/assets/x.js',
              line: 4,
              column: 9,
              reason: 'no map for this file',
              inApp: true,
            },
          },
        ],
      },
    ]);
  });
});

describe('source lines an SDK sent', () => {
  const SDK = { pre: ['def divide():'], line: '    return 1 / 0', post: [''] };
  const python = {
    filename: 'app/views.py',
    function: 'divide',
    lineno: 12,
    inApp: true,
    context: SDK,
  };

  it('are shown for a frame Node mapped (no source of its own) and one left as it came, not for a library’s', () => {
    const exceptions: ExceptionDetail[] = [
      {
        type: 'ZeroDivisionError',
        value: 'division by zero',
        thread: 'main (crashed)',
        frames: [python, python, python],
      },
    ];
    const views = stackViewOf(
      {
        exceptions: [
          {
            type: 'ZeroDivisionError',
            value: 'division by zero',
            frames: exceptions[0]?.frames ?? [],
            resolutions: [
              {
                resolved: true,
                path: 'app/views.py',
                line: 12,
                column: 1,
                context: null,
                library: false,
              },
              { resolved: false, reason: 'no map for this file' },
              {
                resolved: true,
                path: 'lib/x.py',
                line: 12,
                column: 1,
                context: null,
                library: true,
              },
            ],
            groups: [
              { kind: 'frame', index: 0 },
              { kind: 'frame', index: 1 },
              { kind: 'library', indices: [2] },
            ],
          },
        ],
      },
      exceptions,
    );
    expect(views[0]?.thread).toBe('main (crashed)');
    const [resolvedRun, unresolvedRun, libraryRun] = views[0]?.runs ?? [];
    expect(resolvedRun).toMatchObject({ kind: 'frame', frame: { line: 12, context: SDK } });
    expect(unresolvedRun).toMatchObject({ kind: 'frame', frame: { line: 12, context: SDK } });
    // No source for a library's frame, whoever sent it.
    expect(libraryRun).toEqual({
      kind: 'library',
      frames: [{ file: 'lib/x.py', line: 12, column: 1, inApp: true }],
    });
    expect(stackAsItCame(exceptions)[0]).toMatchObject({
      thread: 'main (crashed)',
      runs: [{ frame: { context: SDK } }, { frame: { context: SDK } }, { frame: { context: SDK } }],
    });
  });
});

describe('stackAsItCame', () => {
  const exceptions: ExceptionDetail[] = [
    { type: 'Error', value: 'x', frames: [chunk(1), { inApp: false }] },
  ];

  it.each([
    ['with a reason for every frame', 'no built source maps (development server)'],
    ['with none', undefined],
  ])('shows each frame on its own, %s', (_, reason) => {
    const runs = stackAsItCame(exceptions, reason)[0]?.runs;
    expect(runs).toEqual([
      {
        kind: 'frame',
        frame: {
          functionName: 'q',
          file: 'http://localhost:3000/_build/assets/x.js',
          line: 1,
          column: 9,
          ...(reason ? { reason } : {}),
          inApp: true,
        },
      },
      { kind: 'frame', frame: reason ? { reason } : {} },
    ]);
  });
});
