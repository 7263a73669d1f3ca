import { describe, expect, it } from 'vitest';
import {
  frameOrigin,
  framePosition,
  originalFrame,
} from '#app/server/inbox/source-maps/resolve-frame';

const URL = 'http://localhost:3000/_build/assets/index-abc.js';

describe('framePosition', () => {
  it.each([
    // Sentry's columns are 1-based; trace-mapping takes 0-based columns and 1-based lines.
    ['a browser frame', { filename: URL, lineno: 1, colno: 190 }, { line: 1, column: 189 }],
    ['the first column', { filename: URL, lineno: 3, colno: 1 }, { line: 3, column: 0 }],
    ['no column: the line start', { filename: URL, lineno: 3 }, { line: 3, column: 0 }],
    [
      'a server chunk',
      { filename: '/srv/.output/server/chunks/_/start.mjs', lineno: 2, colno: 5 },
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
    [
      'TypeScript run from source',
      { filename: '/srv/app/triage.ts', lineno: 1 },
      'not a frame of ours',
    ],
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

const SERVER = '/srv/app/.output/server';

describe('frameOrigin', () => {
  it.each([
    ['a browser chunk URL', 'http://localhost:3000/_build/assets/index-abc.js', 'generated'],
    ['an https chunk URL', 'https://example.com/_build/assets/index-abc.js', 'generated'],
    ['our TypeScript, mapped by Node', '/srv/app/app/routes/x/ssr-error.tsx', 'original'],
    ['a package Node mapped', '/srv/app/node_modules/h3/dist/index.mjs', 'original'],
    ['a chunk of the built server', `${SERVER}/chunks/nitro/nitro.mjs`, 'generated'],
    ['the built entry', `${SERVER}/index.mjs`, 'generated'],
    ['a file URL into the built server', `file://${SERVER}/chunks/_/start.mjs`, 'generated'],
    ['a package copied beside the server', `${SERVER}/node_modules/react-dom/x.js`, 'original'],
    ['a folder that only starts alike', '/srv/app/.output/server-old/index.mjs', 'original'],
    ['a file URL of our TypeScript', 'file:///srv/app/app/ErrorFallback.tsx', 'original'],
    ["Node's own modules", 'node:internal/process/task_queues', 'original'],
    ['a Windows path', 'C:\\srv\\app\\app\\ErrorFallback.tsx', 'original'],
    ['a protocol-relative URL', '//cdn.example.com/x.js', 'generated'],
    ['a relative path', 'app/x.js', 'generated'],
    ['no file name', undefined, 'generated'],
    ['a number', 42, 'generated'],
    ['an overlong path', `/${'a'.repeat(5000)}.ts`, 'generated'],
  ])('%s is %s', (_, filename, origin) => {
    expect(frameOrigin(filename, SERVER)).toBe(origin);
  });

  it('takes every local file as original when there is no built server (vinxi dev)', () => {
    expect(frameOrigin(`${SERVER}/chunks/nitro/nitro.mjs`)).toBe('original');
    expect(frameOrigin('http://localhost:3000/_build/app/ErrorFallback.tsx')).toBe('generated');
  });
});

describe('originalFrame', () => {
  const root = { projectRoot: '/srv/app' };

  it.each([
    [
      'our file, project-relative',
      { filename: '/srv/app/app/routes/x/ssr-error.tsx', lineno: 7, colno: 11, function: 'loader' },
      {
        path: 'app/routes/x/ssr-error.tsx',
        line: 7,
        column: 11,
        functionName: 'loader',
        library: false,
      },
    ],
    [
      'a package, from its name on',
      { filename: '/srv/app/node_modules/h3/dist/index.mjs', lineno: 1, colno: 2 },
      { path: 'h3/dist/index.mjs', line: 1, column: 2, library: true },
    ],
    [
      "Node's own module, as named",
      { filename: 'node:internal/process/task_queues', lineno: 95, colno: 5, function: 'run' },
      { path: 'node:internal/process/task_queues', line: 95, column: 5, library: true },
    ],
    [
      'outside the project: from its app/ folder on',
      { filename: 'file:///deploy/app/server/env.server.ts', lineno: 3, colno: 1 },
      { path: 'app/server/env.server.ts', line: 3, column: 1, library: false },
    ],
  ])('%s', (_, frame, expected) => {
    expect(originalFrame(frame, root)).toMatchObject({
      resolved: true,
      context: null,
      ...expected,
    });
  });

  it.each([
    ['no position', { filename: '/srv/app/app/triage.ts' }, 'no usable position'],
    [
      'a line that is no number',
      { filename: '/srv/app/app/triage.ts', lineno: '7', colno: 1 },
      'no usable position',
    ],
    ['no file', { lineno: 1, colno: 1 }, 'no file name'],
    ['not an object', 'at x (/dsn.ts:1:1)', 'no file name'],
  ])('%s: shown as it came, with a reason', (_, frame, reason) => {
    expect(originalFrame(frame, root)).toEqual({ resolved: false, reason });
  });
});
