/**
 * Development's view of a failure: server stacks, the code frame, the terminal block, and a
 * browser failure resolved through given maps, in the terminal line and vite's overlay.
 */

import { TraceMap } from '@jridgewell/trace-mapping';
import { describe, expect, it } from 'vitest';
import {
  browserFailureLine,
  browserFailureView,
  codeFrame,
  failureBlock,
  framesOf,
  overlayErrorOf,
  stackFramesOf,
} from '#app/server/failures/dev-failure-view';
import { NO_MAP, type SourceMapStore } from '#app/server/inbox/source-maps/map-store.server';

const ROOT = '/home/dev/app';
const SOURCE = [
  'line 1',
  'line 2',
  'export const loader = () => {',
  "  throw new Error('boom');",
  '};',
  'line 6',
].join('\n');

function renderError(): Error {
  const error = new Error('boom');
  error.stack = [
    'Error: boom',
    `    at loader (${ROOT}/app/routes/about.tsx?tsr-split=loader:4:9)`,
    `    at callLoader (file://${ROOT}/app/server/format.ts:10:3)`,
    ...Array.from(
      { length: 50 },
      (_, i) =>
        `    at renderWithHooks (${ROOT}/node_modules/react-dom/cjs/react-dom.js:${i + 1}:1)`,
    ),
    '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
  ].join('\n');
  return error;
}

describe('framesOf', () => {
  it.each([
    [
      `    at fn (${ROOT}/app/dsn.ts:1:2)`,
      { fn: 'fn', file: 'app/dsn.ts', line: 1, column: 2, own: true },
    ],
    [`    at ${ROOT}/app/dsn.ts?v=1:3:4`, { file: 'app/dsn.ts', line: 3, column: 4, own: true }],
    [
      `    at fn (file://${ROOT}/app/dsn.ts:1:2)`,
      { fn: 'fn', file: 'app/dsn.ts', line: 1, column: 2, own: true },
    ],
    [
      `    at x (${ROOT}/node_modules/h3/dist/index.mjs:5:6)`,
      { fn: 'x', file: 'node_modules/h3/dist/index.mjs', line: 5, column: 6, own: false },
    ],
    [
      '    at x (node:internal/timers:1:2)',
      { fn: 'x', file: 'node:internal/timers', line: 1, column: 2, own: false },
    ],
  ])('%s', (line, frame) => {
    expect(framesOf(`Error: x\n${line}`, ROOT)).toEqual([frame]);
  });
});

it('codeFrame marks the line and the column', () => {
  expect(codeFrame(SOURCE, 4, 9)).toEqual([
    '  2 | line 2',
    '  3 | export const loader = () => {',
    "> 4 |   throw new Error('boom');",
    '    |         ^',
    '  5 | };',
    '  6 | line 6',
  ]);
});

describe('failureBlock', () => {
  const context = { phase: 'loader', route: '/page', method: 'GET', url: '/page?x=1' } as const;
  const block = failureBlock(renderError(), '41b9442414', context, {
    root: ROOT,
    readSource: (file) => (file === 'app/routes/about.tsx' ? SOURCE : undefined),
  });

  it('holds the message, the code frame, our frames and the digest, under 30 lines', () => {
    expect(block).toContain('Error: boom');
    expect(block).toContain('digest 41b9442414');
    expect(block).toContain('app/routes/about.tsx:4:9');
    expect(block).toContain("> 4 |   throw new Error('boom');");
    expect(block).toContain('at callLoader (app/server/format.ts:10:3)');
    expect(block.split('\n').length).toBeLessThan(30);
  });

  it('counts library frames and never lists them', () => {
    expect(block).toContain('+ 51 library frames');
    expect(block).not.toContain('react-dom');
    expect(block).not.toContain('node:internal');
  });

  it.each([
    ['a string', 'just a string'],
    ['null', null],
    ['an error without a stack', Object.assign(new Error('no stack'), { stack: undefined })],
  ])('never throws for %s', (_name, thrown) => {
    expect(() =>
      failureBlock(thrown, 'abc', context, { root: ROOT, readSource: () => undefined }),
    ).not.toThrow();
  });

  it('shows no code frame when the source cannot be read', () => {
    const without = failureBlock(renderError(), 'abc', context, {
      root: ROOT,
      readSource: () => {
        throw new Error('EACCES');
      },
    });
    expect(without).toContain('app/routes/about.tsx:4:9');
    expect(without).not.toContain('> 4 |');
  });
});

describe('the overlay and a browser failure line', () => {
  const ROOT = '/home/dev/project';
  const ORIGIN = 'http://127.0.0.1:3000';
  const COMPONENT = `${ORIGIN}/_build/app/routes/about.tsx?tsr-split=component`;
  const REACT_DOM = `${ORIGIN}/_build/node_modules/.vinxi/client/deps/react-dom_client.js?v=1a2b`;
  const SOURCE = [
    'line 1',
    'line 2',
    'function Page() {',
    '  const go = () => {',
    "    throw new Error('boom');",
    '  };',
    '}',
  ].join('\n');

  /** One generated position → one original position, as vite's transform maps hold them. */
  function mapOf(
    source: string,
    generated: [number, number],
    original: [number, number],
    name?: string,
  ) {
    const segment = name
      ? [generated[1], 0, original[0] - 1, original[1], 0]
      : [generated[1], 0, original[0] - 1, original[1]];
    const mappings: number[][][] = Array.from({ length: generated[0] }, () => []);
    mappings[generated[0] - 1] = [segment];
    return new TraceMap({
      version: 3,
      sources: [source],
      names: name ? [name] : [],
      mappings,
    } as never);
  }

  /** The dev server's maps: the component module (its query picks it) and a library. */
  const store: SourceMapStore = {
    byDebugId: async () => ({ found: false, reason: NO_MAP }),
    async byChunkPath(_path, url) {
      if (url === COMPONENT)
        return { found: true, map: mapOf(`${ROOT}/app/routes/about.tsx`, [60, 14], [5, 10], 'go') };
      if (url === REACT_DOM)
        return {
          found: true,
          map: mapOf(
            `${ROOT}/node_modules/react-dom/cjs/react-dom.development.js`,
            [900, 0],
            [4000, 2],
          ),
        };
      return { found: false, reason: NO_MAP };
    },
  };

  const files = {
    root: ROOT,
    readSource: (file: string) => (file === 'app/routes/about.tsx' ? SOURCE : undefined),
  };

  const CHROME_STACK = [
    'Error: boom',
    `    at go (${COMPONENT}:60:15)`,
    `    at callCallback (${REACT_DOM}:900:1)`,
    `    at ${REACT_DOM}:900:1`,
    '    at chrome-extension://abcdef/content.js:1:1',
  ].join('\n');

  describe('stackFramesOf', () => {
    it.each([
      ['V8 (Chromium)', CHROME_STACK],
      [
        'Gecko and WebKit',
        `go@${COMPONENT}:60:15\ncallCallback@${REACT_DOM}:900:1\n@${REACT_DOM}:900:1\n@chrome-extension://abcdef/content.js:1:1`,
      ],
    ])('reads a %s stack, most recent call first', (_engine, stack) => {
      const frames = stackFramesOf(stack);
      expect(frames.map((frame) => [frame.filename, frame.lineno, frame.colno])).toEqual([
        [COMPONENT, 60, 15],
        [REACT_DOM, 900, 1],
        [REACT_DOM, 900, 1],
        ['chrome-extension://abcdef/content.js', 1, 1],
      ]);
      expect(frames[0]?.function).toBe('go');
    });

    it('skips lines that are not frames', () => {
      expect(stackFramesOf('Error: boom\n    not a frame\n\n')).toEqual([]);
    });

    it('reads a V8 stack as V8 frames only: a message that looks like a Gecko frame is not one', () => {
      const frames = stackFramesOf(
        `Error: failed for db@10.0.0.1:5432:3\n    at go (${COMPONENT}:60:15)`,
      );
      expect(frames.map((frame) => frame.filename)).toEqual([COMPONENT]);
    });
  });

  describe('browserFailureView', () => {
    it('names our line through the dev server maps, with a code frame; library and unknown frames are counted', async () => {
      const view = await browserFailureView(
        { message: 'Error: boom', stack: CHROME_STACK, page: `${ORIGIN}/page` },
        store,
        files,
      );
      expect(view.top).toMatchObject({
        file: 'app/routes/about.tsx',
        line: 5,
        column: 11,
        fn: 'go',
      });
      expect(view.own).toHaveLength(1);
      expect(view.libraryFrames).toBe(3);
      expect(view.frame.join('\n')).toContain("> 5 |     throw new Error('boom');");
      expect(browserFailureLine(view, `${ORIGIN}/page`)).toBe(
        `✖ browser: Error: boom · app/routes/about.tsx:5:11 · ${ORIGIN}/page`,
      );
    });

    it('with no frame of ours, says so on its one line and gives the overlay no location', async () => {
      const view = await browserFailureView(
        {
          message: 'Error: from an extension',
          stack: '    at chrome-extension://abcdef/content.js:1:1',
          page: `${ORIGIN}/`,
        },
        store,
        files,
      );
      expect(browserFailureLine(view, `${ORIGIN}/`)).toBe(
        `✖ browser: Error: from an extension · no frame of ours · ${ORIGIN}/`,
      );
      const overlay = overlayErrorOf(view, 'Browser');
      expect(overlay.loc).toBeUndefined();
      expect(overlay.frame).toBeUndefined();
      expect(overlay.stack).toBe('Browser\n    + 1 library frame');
    });
  });

  describe('overlayErrorOf', () => {
    it('gives vite’s overlay the message, the location, the code frame and our frames', async () => {
      const view = await browserFailureView(
        { message: 'Error: boom\nsecond line', stack: CHROME_STACK, page: `${ORIGIN}/page` },
        store,
        files,
      );
      const overlay = overlayErrorOf(view, `Browser: ${ORIGIN}/page`);
      expect(overlay.message).toBe('Error: boom');
      expect(overlay.loc).toEqual({ file: 'app/routes/about.tsx', line: 5, column: 11 });
      // Its first line keeps its gutter through the overlay's trim() (a zero-width space shows nothing).
      const shown = overlay.frame?.trim().replace('\u200b', '');
      expect(shown?.split('\n').map((line) => line.indexOf('|'))).toEqual([4, 4, 4, 4, 4, 4]);
      expect(overlay.frame?.trim()).toMatch(/^\u200b {2}3 \| function Page\(\) \{/);
      expect(overlay.stack.split('\n')).toEqual([
        `Browser: ${ORIGIN}/page`,
        '    at go (app/routes/about.tsx:5:11)',
        '    + 3 library frames',
      ]);
    });
  });

  describe('browserFailureLine', () => {
    it('keeps terminal escapes and line breaks out of the line', async () => {
      const view = await browserFailureView(
        { message: 'Error: \u001b[2J\u001b[31mfake', stack: '', page: `${ORIGIN}/\r\n✖ forged` },
        store,
        files,
      );
      const line = browserFailureLine(view, `${ORIGIN}/\r\n✖ forged`);
      expect([...line].filter((char) => char.charCodeAt(0) < 0x20)).toEqual([]);
      expect(line.split('\n')).toHaveLength(1);
    });
  });
});
