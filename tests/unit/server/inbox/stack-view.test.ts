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
    expect(stackViewOf(resolved, [])).toEqual([
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
