import { describe, expect, it } from 'vitest';
import { codeFrame, failureBlock, framesOf } from '#app/server/failures/dev-failure-block';

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
    `    at loader (${ROOT}/app/routes/page.tsx?tsr-split=loader:4:9)`,
    `    at callLoader (file://${ROOT}/app/server/helper.ts:10:3)`,
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
      `    at fn (${ROOT}/app/a.ts:1:2)`,
      { fn: 'fn', file: 'app/a.ts', line: 1, column: 2, own: true },
    ],
    [`    at ${ROOT}/app/a.ts?v=1:3:4`, { file: 'app/a.ts', line: 3, column: 4, own: true }],
    [
      `    at fn (file://${ROOT}/app/a.ts:1:2)`,
      { fn: 'fn', file: 'app/a.ts', line: 1, column: 2, own: true },
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
    readSource: (file) => (file === 'app/routes/page.tsx' ? SOURCE : undefined),
  });

  it('holds the message, the code frame, our frames and the digest, under 30 lines', () => {
    expect(block).toContain('Error: boom');
    expect(block).toContain('digest 41b9442414');
    expect(block).toContain('app/routes/page.tsx:4:9');
    expect(block).toContain("> 4 |   throw new Error('boom');");
    expect(block).toContain('at callLoader (app/server/helper.ts:10:3)');
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
    expect(without).toContain('app/routes/page.tsx:4:9');
    expect(without).not.toContain('> 4 |');
  });
});
