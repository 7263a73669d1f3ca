import { eachMapping, TraceMap } from '@jridgewell/trace-mapping';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  functionNameOf,
  MAX_CONTEXT_LINE,
  resolveFrame,
  SourceLines,
  shownSource,
} from '#app/server/inbox/source-maps/resolve-frame';
import {
  buildFixture,
  CHUNK_URL,
  type Fixture,
  LINES,
  ROUTE_FILE,
  ROUTE_SOURCE,
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
    ['a negative original line', { sources: ['a.ts'], mappings: 'AA/////DAAA' }],
    ['a generated column far negative', { sources: ['a.ts'], mappings: '////' }],
    ['a name index past the names', { sources: ['a.ts'], mappings: 'AAAAgB' }],
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
        sources: ['a.ts'],
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
    ['relative to the map', '../../app/routes/x.tsx', 'app/routes/x.tsx', false],
    [
      'Vite client map',
      '../app/routes/sentry-example-page/index.tsx',
      'app/routes/sentry-example-page/index.tsx',
      false,
    ],
    ['webpack with a namespace', 'webpack://my-app/./app/routes/x.tsx', 'app/routes/x.tsx', false],
    ['webpack without one', 'webpack:///./app/routes/x.tsx', 'app/routes/x.tsx', false],
    [
      'absolute from the build machine',
      '/home/ci/project/app/routes/x.tsx',
      'app/routes/x.tsx',
      false,
    ],
    [
      'file URL',
      'file:///home/ci/project/app/server/env.server.ts',
      'app/server/env.server.ts',
      false,
    ],
    ['Windows path', 'C:\\ci\\project\\app\\routes\\x.tsx', 'app/routes/x.tsx', false],
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
    ['a fragment', 'webpack://x/./app/x.tsx#L1', 'app/x.tsx', false],
  ])('%s', (_, source, path, library) => {
    expect(shownSource(source)).toEqual({ path, library });
  });

  it('shows an absolute source relative to the project root when given', () => {
    // Without the root, the first "app/" folder would be the parent one.
    expect(
      shownSource('/srv/app/project/app/routes/x.tsx', { projectRoot: '/srv/app/project' }),
    ).toEqual({
      path: 'app/routes/x.tsx',
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
    const { path } = shownSource(`app/${'a/'.repeat(500)}x.ts`);
    expect(path.length).toBeLessThanOrEqual(257);
    expect(path.endsWith('…')).toBe(true);
  });
});
