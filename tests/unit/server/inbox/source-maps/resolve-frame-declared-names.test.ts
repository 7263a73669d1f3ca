/**
 * A browser frame of our code is named by the function it is in, as a server frame is: on the
 * example page's browser chunk and map as our build wrote them (tests/fixtures/client-chunks),
 * where `RenderBomb` is minified to `b` and React calls it as `Component(props, …)`.
 */
import { copyFile, mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TraceMap } from '@jridgewell/trace-mapping';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDirectoryMapStore } from '#app/server/inbox/source-maps/map-store.server';
import {
  declaredFunctionName,
  resolveEventFrames,
  resolveFrame,
} from '#app/server/inbox/source-maps/resolve-frame';

const FIXTURES = join(import.meta.dirname, '../../../../fixtures/client-chunks');
const CHUNK = '_build/assets/sentry-example-page-UUL6iud3.js';
const CHUNK_URL = `http://127.0.0.1:3000/${CHUNK}`;
const ROUTE = 'app/routes/sentry-example-page/index.tsx';

let map: TraceMap;
let lines: string[];
/** The frame Chromium gives for the throw in `RenderBomb`: minified `b`, 1-based position. */
let thrown: { filename: string; function: string; lineno: number; colno: number };
let renderBombLine: number;

beforeAll(async () => {
  map = new TraceMap(await readFile(join(FIXTURES, 'sentry-example-page.js.map'), 'utf8'));
  const text = await readFile(join(FIXTURES, 'sentry-example-page.js.txt'), 'utf8');
  lines = text.split('\n');
  const row = lines.findIndex((line) => line.includes('function b(){throw new Error('));
  const column = (lines[row] ?? '').indexOf('new Error("Sentry example: render error');
  thrown = { filename: CHUNK_URL, function: 'b', lineno: row + 1, colno: column + 1 };
  const source = map.sourcesContent?.[0] ?? '';
  renderBombLine =
    source
      .split('\n')
      .findIndex((line) => line.includes("throw new Error('Sentry example: render")) + 1;
});

describe('declaredFunctionName', () => {
  it('walks back from the throw to `function b` and takes its original name', () => {
    const at = { line: thrown.lineno, column: thrown.colno - 1 };
    expect(declaredFunctionName(map, lines, at, 'b')).toBe('RenderBomb');
    // V8's alias form names the same function.
    expect(declaredFunctionName(map, lines, at, 'Module.b [as run]')).toBe('RenderBomb');
  });

  it('finds nothing for a name declared nowhere before the position, or one the map lists', () => {
    const at = { line: thrown.lineno, column: thrown.colno - 1 };
    expect(declaredFunctionName(map, lines, at, 'q')).toBeUndefined();
    expect(declaredFunctionName(map, lines, at, 'LastReport')).toBeUndefined();
  });
});

describe('resolveFrame with the chunk’s lines', () => {
  it('names the frame by its declaration, not by React’s `Component(props)` call site', () => {
    expect(resolveFrame(map, thrown, { callerName: 'Component', chunkLines: lines })).toMatchObject(
      { resolved: true, path: ROUTE, line: renderBombLine, functionName: 'RenderBomb' },
    );
  });

  it('keeps caller naming without the chunk, or when no declaration is found', () => {
    expect(resolveFrame(map, thrown, { callerName: 'Component' })).toMatchObject({
      functionName: 'Component',
    });
    const unknown = { ...thrown, function: 'q' };
    expect(
      resolveFrame(map, unknown, { callerName: 'Component', chunkLines: lines }),
    ).toMatchObject({ functionName: 'Component' });
  });

  it('keeps an engine name that is not a minifier’s, as caller naming does', () => {
    expect(
      resolveFrame(map, { ...thrown, function: 'onClick' }, { chunkLines: lines }),
    ).toMatchObject({ functionName: 'onClick' });
  });
});

describe('a browser event through the build’s store', () => {
  it('reads the chunk beside its map and lists the frame "in RenderBomb"', async () => {
    const output = await mkdtemp(join(tmpdir(), 'declared-name-'));
    const mapsDir = join(output, 'sourcemaps', 'client');
    const publicDir = join(output, 'public');
    await mkdir(join(mapsDir, '_build/assets'), { recursive: true });
    await mkdir(join(publicDir, '_build/assets'), { recursive: true });
    await copyFile(join(FIXTURES, 'sentry-example-page.js.map'), join(mapsDir, `${CHUNK}.map`));
    await copyFile(join(FIXTURES, 'sentry-example-page.js.txt'), join(publicDir, CHUNK));
    const store = createDirectoryMapStore({ root: mapsDir, chunksRoot: publicDir });

    const resolved = await resolveEventFrames(
      {
        exceptions: [{ type: 'Error', value: 'boom', frames: [{ ...thrown, inApp: true }] }],
        debugImages: [],
      },
      store,
    );

    expect(resolved.topFrame?.label).toBe(`${ROUTE}:${renderBombLine} in RenderBomb`);
  });

  it('without the chunk beside its map, the frame keeps the name it had', async () => {
    const mapsDir = await mkdtemp(join(tmpdir(), 'declared-name-'));
    await mkdir(join(mapsDir, '_build/assets'), { recursive: true });
    await copyFile(join(FIXTURES, 'sentry-example-page.js.map'), join(mapsDir, `${CHUNK}.map`));
    const store = createDirectoryMapStore({ root: mapsDir, chunksRoot: join(mapsDir, 'none') });

    const resolved = await resolveEventFrames(
      {
        exceptions: [{ type: 'Error', value: 'boom', frames: [{ ...thrown, inApp: true }] }],
        debugImages: [],
      },
      store,
    );

    expect(resolved.topFrame?.label).toBe(`${ROUTE}:${renderBombLine} in b`);
  });
});
