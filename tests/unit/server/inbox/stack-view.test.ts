import { describe, expect, it } from 'vitest';
import type { ExceptionDetail } from '#app/server/inbox/inbox-event';
import type { ResolvedEvent } from '#app/server/inbox/source-maps/resolve-event';
import { stackAsItCame, stackViewOf } from '#app/server/inbox/stack-view';

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
            path: 'app/x.tsx',
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
    expect(stackViewOf(resolved)).toEqual([
      {
        type: 'Error',
        value: 'boom',
        runs: [
          {
            kind: 'frame',
            frame: {
              functionName: 'onClick',
              file: 'app/x.tsx',
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
