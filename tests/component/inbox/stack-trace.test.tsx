import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { StackTrace } from '#app/components/inbox/StackTrace';
import type { ExceptionView, FrameView } from '#app/server/inbox/stack-view';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';
const ROUTE = 'app/routes/sentry-example-page/index.tsx';

const onClick: FrameView = {
  functionName: 'onClick',
  file: ROUTE,
  line: 37,
  column: 19,
  context: {
    pre: ['          type="button"', '          onClick={() => {'],
    line: "            throw new Error('Sentry example: client error');",
    post: ['          }}', '        >'],
  },
};
const reactFrame = (name: string): FrameView => ({
  functionName: name,
  file: 'react-dom/cjs/react-dom-client.production.js',
  line: 12_000,
  column: 5,
});

function renderStack(exceptions: ExceptionView[]) {
  return render(<StackTrace exceptions={exceptions} />);
}

const frameList = () => screen.getByRole('list', { name: 'Stack frames' });

describe('StackTrace', () => {
  it('shows a resolved frame where it is in our source, with five lines around it and the throwing line marked', () => {
    renderStack([{ type: 'Error', value: 'boom', runs: [{ kind: 'frame', frame: onClick }] }]);
    const [frame] = within(frameList()).getAllByRole('listitem');
    expect(frame?.textContent).toMatch(new RegExp(`^onClick at ${ROUTE}:37:19`));
    const rows = [...(frame?.querySelectorAll('.source-line') ?? [])].map((row) => row.textContent);
    expect(rows).toEqual([
      '35          type="button"\n',
      '36          onClick={() => {\n',
      "37            throw new Error('Sentry example: client error');\n",
      '38          }}\n',
      '39        >\n',
    ]);
    const marked = frame?.querySelectorAll('mark');
    expect(marked).toHaveLength(1);
    expect(marked?.[0]?.textContent).toBe(
      "37            throw new Error('Sentry example: client error');\n",
    );
  });

  it('folds each run of library frames under "N library frames", closed, and keeps ours open', () => {
    renderStack([
      {
        type: 'Error',
        value: 'boom',
        runs: [
          { kind: 'frame', frame: onClick },
          { kind: 'library', frames: ['a', 'b', 'c'].map(reactFrame) },
          { kind: 'frame', frame: { ...onClick, functionName: 'run', context: undefined } },
          { kind: 'library', frames: [reactFrame('d')] },
        ],
      },
    ]);
    const summaries = screen.getAllByText(/library frames?$/);
    expect(summaries.map((summary) => summary.textContent)).toEqual([
      '3 library frames',
      '1 library frame',
    ]);
    const folds = [...document.querySelectorAll('details')];
    expect(folds.map((fold) => fold.open)).toEqual([false, false]);
    expect(
      within(folds[0] as HTMLElement)
        .getAllByRole('listitem', { hidden: true })
        .map((item) => item.textContent),
    ).toEqual(
      ['a', 'b', 'c'].map(
        (name) => `${name} at react-dom/cjs/react-dom-client.production.js:12000:5`,
      ),
    );
    // Our frames are outside any fold.
    for (const name of ['onClick', 'run']) {
      expect(screen.getByText(name).closest('details')).toBeNull();
    }
  });

  it('shows a frame that could not be resolved as it came, with its reason', () => {
    renderStack([
      {
        type: 'TypeError',
        value: 'x',
        runs: [
          {
            kind: 'frame',
            frame: {
              file: 'http://localhost:3000/_build/assets/vendor-Ab12.js',
              line: 1,
              column: 2345,
              reason: 'no map for this file',
            },
          },
          { kind: 'frame', frame: { reason: 'no file name' } },
        ],
      },
    ]);
    expect(
      within(frameList())
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      '<anonymous> at http://localhost:3000/_build/assets/vendor-Ab12.js:1:2345 (no map for this file)',
      '<anonymous> at <unknown file> (no file name)',
    ]);
    expect(document.querySelector('mark')).toBeNull();
  });

  it('keeps hostile text as text: message, function, file and source lines', () => {
    renderStack([
      {
        type: 'Error',
        value: HOSTILE,
        runs: [
          {
            kind: 'frame',
            frame: {
              functionName: HOSTILE,
              file: `${HOSTILE}.tsx`,
              line: 3,
              column: 1,
              context: { pre: [HOSTILE], line: `<script>window.__pwned=1</script>`, post: [] },
            },
          },
          { kind: 'library', frames: [{ functionName: HOSTILE, reason: HOSTILE }] },
        ],
      },
    ]);
    expect(screen.getByRole('heading', { name: `Error: ${HOSTILE}` })).toBeTruthy();
    expect(document.querySelector('img')).toBeNull();
    expect(document.querySelector('script')).toBeNull();
    expect(document.querySelector('mark')?.textContent).toBe(
      '3<script>window.__pwned=1</script>\n',
    );
    expect(document.body.textContent).toContain(`${HOSTILE} at ${HOSTILE}.tsx:3:1`);
  });

  it('marks the frames the event calls ours "in app", and no other', () => {
    renderStack([
      {
        type: 'Error',
        value: 'boom',
        runs: [
          { kind: 'frame', frame: { ...onClick, inApp: true } },
          { kind: 'frame', frame: reactFrame('dispatchEvent') },
        ],
      },
    ]);
    const [ours, react] = within(frameList()).getAllByRole('listitem');
    expect(ours?.textContent).toContain('in app');
    expect(react?.textContent).not.toContain('in app');
  });

  it('says whose stack it is when it is a thread’s, and numbers the source lines an SDK sent', () => {
    renderStack([
      {
        type: 'ZeroDivisionError',
        value: 'division by zero',
        thread: 'MainThread (crashed)',
        runs: [
          {
            kind: 'frame',
            frame: {
              functionName: 'divide',
              file: 'app/views.py',
              line: 12,
              inApp: true,
              context: { pre: ['def divide():'], line: '    return 1 / 0', post: [''] },
            },
          },
        ],
      },
    ]);
    expect(screen.getByText('The stack of thread MainThread (crashed)')).toBeTruthy();
    const rows = [...document.querySelectorAll('.source-line')].map((row) => row.textContent);
    expect(rows).toEqual(['11def divide():\n', '12    return 1 / 0\n', '13\n']);
    expect(document.querySelector('mark')?.textContent).toBe('12    return 1 / 0\n');
  });

  it('says so when there is no stack, or an exception has no frames', () => {
    const { unmount } = renderStack([]);
    expect(screen.getByText('This event has no stack trace.')).toBeTruthy();
    unmount();
    renderStack([{ type: 'Error', value: 'x', runs: [] }]);
    expect(screen.getByText('No frames.')).toBeTruthy();
  });
});
