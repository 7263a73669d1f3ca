import { describe, expect, it } from 'vitest';
import { framePosition } from '#app/server/inbox/source-maps/frame-input';

const URL = 'http://localhost:3000/_build/assets/index-abc.js';

describe('framePosition', () => {
  it.each([
    // Sentry's columns are 1-based; trace-mapping takes 0-based columns and 1-based lines.
    ['a browser frame', { filename: URL, lineno: 1, colno: 190 }, { line: 1, column: 189 }],
    ['the first column', { filename: URL, lineno: 3, colno: 1 }, { line: 3, column: 0 }],
    ['no column: the line start', { filename: URL, lineno: 3 }, { line: 3, column: 0 }],
    [
      'a server chunk',
      { filename: '/srv/.output/server/chunks/_/x.mjs', lineno: 2, colno: 5 },
      { line: 2, column: 4 },
    ],
    [
      'a file URL',
      { filename: 'file:///srv/.output/server/index.mjs', lineno: 2, colno: 5 },
      { line: 2, column: 4 },
    ],
  ])('%s', (_, frame, expected) => {
    const result = framePosition(frame);
    expect(result.ok && { line: result.position.line, column: result.position.column }).toEqual(
      expected,
    );
  });

  it('takes a module the dev server serves at its TypeScript name, keeping the query apart', () => {
    const module = 'http://127.0.0.1:3000/_build/app/routes/index.tsx?tsr-split=component';
    const result = framePosition({ filename: module, lineno: 60, colno: 15 });
    expect(result.ok && result.position).toEqual({
      filename: module,
      path: '/_build/app/routes/index.tsx',
      line: 60,
      column: 14,
    });
  });

  it('keeps the URL path without query or fragment', () => {
    const result = framePosition({ filename: `${URL}?v=3#x`, lineno: 1 });
    expect(result.ok && result.position.path).toBe('/_build/assets/index-abc.js');
  });

  it.each([
    ['no filename', { lineno: 1, colno: 1 }, 'no file name'],
    ['a number as filename', { filename: 42, lineno: 1 }, 'no file name'],
    ['an object as filename', { filename: { toString: () => URL }, lineno: 1 }, 'no file name'],
    ['not an object', 'frame', 'no file name'],
    ['null', null, 'no file name'],
    [
      'an extension',
      { filename: 'chrome-extension://abc/content.js', lineno: 1 },
      'not a frame of ours',
    ],
    [
      'node internals',
      { filename: 'node:internal/process/task_queues', lineno: 95 },
      'not a frame of ours',
    ],
    ['anonymous', { filename: '<anonymous>', lineno: 1 }, 'not a frame of ours'],
    [
      'a page inline script',
      { filename: 'http://localhost:3000/errors', lineno: 1 },
      'not a frame of ours',
    ],
    ['TypeScript run from source', { filename: '/srv/app/x.ts', lineno: 1 }, 'not a frame of ours'],
    [
      'a huge filename',
      { filename: `http://x/${'a'.repeat(10_000)}.js`, lineno: 1 },
      'not a frame of ours',
    ],
    ['line 0', { filename: URL, lineno: 0, colno: 1 }, 'no usable position'],
    ['negative line', { filename: URL, lineno: -3, colno: 1 }, 'no usable position'],
    ['NaN line', { filename: URL, lineno: Number.NaN }, 'no usable position'],
    ['Infinity line', { filename: URL, lineno: Number.POSITIVE_INFINITY }, 'no usable position'],
    ['fractional line', { filename: URL, lineno: 1.5 }, 'no usable position'],
    ['line as string', { filename: URL, lineno: '1' }, 'no usable position'],
    ['beyond safe integers', { filename: URL, lineno: 2 ** 60 }, 'no usable position'],
    ['column 0', { filename: URL, lineno: 1, colno: 0 }, 'no usable position'],
    ['negative column', { filename: URL, lineno: 1, colno: -1 }, 'no usable position'],
    ['NaN column', { filename: URL, lineno: 1, colno: Number.NaN }, 'no usable position'],
  ])('refuses %s', (_, frame, reason) => {
    expect(framePosition(frame)).toEqual({ ok: false, reason });
  });
});
