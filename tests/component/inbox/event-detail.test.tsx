/**
 * One event as /errors shows it: breadcrumbs, the stack, release health beside them.
 */
import { fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Breadcrumbs, StackTrace } from '#app/components/inbox/IssueEvents';
import { crashFree, ReleaseHealth, receivedLine } from '#app/components/inbox/IssueList';
import type { ExceptionView, FrameView } from '#app/server/inbox/event-stack.server';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';
const MINIFIED_STACK = `TypeError: n is not a function\n    at https://example.com/_build/assets/vendor-${'x'.repeat(400)}.js:1:23456`;

const crumbs = () =>
  within(screen.getByRole('list', { name: 'Breadcrumbs' })).getAllByRole('listitem');

describe('Breadcrumbs', () => {
  it('shows each crumb with its category, level, time, message and data as text', () => {
    render(
      <Breadcrumbs
        breadcrumbs={[
          { timestamp: '2025-11-22T01:59:59.000Z', category: 'ui.click', message: 'button' },
          { type: 'http', level: 'warning', data: `{"url":"${HOSTILE}"}` },
        ]}
      />,
    );
    expect(crumbs().map((crumb) => crumb.textContent)).toEqual([
      'ui.click2025-11-22 01:59:59 UTCbutton',
      `httpwarning{"url":"${HOSTILE}"}`,
    ]);
    expect(document.querySelector('img')).toBeNull();
  });

  it('folds long data, such as a console crumb holding a minified stack, to one line that opens', () => {
    render(
      <Breadcrumbs
        breadcrumbs={[
          { category: 'console', level: 'error', message: MINIFIED_STACK },
          { category: 'fetch', data: JSON.stringify({ body: 'y'.repeat(500) }) },
          { category: 'short', message: 'fits on a line' },
        ]}
      />,
    );
    const [consoleCrumb, fetchCrumb, shortCrumb] = crumbs();
    const folds = [...document.querySelectorAll('details')];
    expect(folds).toHaveLength(2);
    expect(folds.every((fold) => !fold.open)).toBe(true);
    // Closed, the fold shows its first line only; the whole text is inside, to be opened.
    const summary = consoleCrumb?.querySelector('summary');
    expect(summary?.textContent).toBe('TypeError: n is not a function …');
    expect(consoleCrumb?.querySelector('details pre')?.textContent).toBe(MINIFIED_STACK);
    const fetchLine = fetchCrumb?.querySelector('summary')?.textContent ?? '';
    expect(fetchLine).toMatch(/^\{"body":"y+…$/);
    expect(fetchLine).toHaveLength(121);
    expect(shortCrumb?.querySelector('details')).toBeNull();
    expect(shortCrumb?.textContent).toBe('shortfits on a line');

    fireEvent.click(summary as HTMLElement);
    expect(folds[0]?.open).toBe(true);
  });

  it('says when there are none', () => {
    render(<Breadcrumbs breadcrumbs={[]} />);
    screen.getByText('No breadcrumbs.');
  });
});

describe('ReleaseHealth', () => {
  it('shows sessions, their parts and the crash-free rate per release and environment', () => {
    render(
      <ReleaseHealth
        health={[
          {
            release: 'app@1.0.0',
            environment: 'production',
            sessions: 8,
            healthy: 4,
            errored: 2,
            unhandled: 1,
            crashed: 1,
            abnormal: 0,
            crashFreeRate: 0.875,
            unhandledRate: 0.125,
          },
          {
            release: 'app@2.0.0',
            environment: 'development',
            sessions: 0,
            healthy: 0,
            errored: 0,
            unhandled: 0,
            crashed: 0,
            abnormal: 0,
          },
        ]}
      />,
    );
    expect(screen.getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual([
      'Release',
      'Environment',
      'Sessions',
      'Healthy',
      'Errored',
      'Unhandled',
      'Crashed',
      'Crash-free',
    ]);
    const rows = screen.getAllByRole('row').map((row) =>
      within(row)
        .queryAllByRole('cell')
        .map((cell) => cell.textContent),
    );
    expect(rows.slice(1)).toEqual([
      ['app@1.0.0', 'production', '8', '4', '2', '1', '1', '87.5%'],
      ['app@2.0.0', 'development', '0', '0', '0', '0', '0', 'no sessions'],
    ]);
  });

  it('never rounds a crash up to a perfect rate', () => {
    expect(crashFree(1)).toBe('100%');
    expect(crashFree(0.99999)).toBe('99.99%');
    expect(crashFree(0)).toBe('0%');
  });

  it('names the other items received, not events', () => {
    expect(receivedLine({ event: 3, session: 15, span: 2, client_report: 1 })).toBe(
      'Also received: 15 session updates, 2 span items, 1 client report.',
    );
    expect(receivedLine({ event: 3 })).toBeUndefined();
  });
});

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
    expect(screen.getByRole('heading', { name: `Error: ${HOSTILE}` }).textContent).toBe(
      `Error: ${HOSTILE}`,
    );
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
    screen.getByText('The stack of thread MainThread (crashed)');
    const rows = [...document.querySelectorAll('.source-line')].map((row) => row.textContent);
    expect(rows).toEqual(['11def divide():\n', '12    return 1 / 0\n', '13\n']);
    expect(document.querySelector('mark')?.textContent).toBe('12    return 1 / 0\n');
  });

  it('says so when there is no stack, or an exception has no frames', () => {
    const { unmount } = renderStack([]);
    screen.getByText('This event has no stack trace.');
    unmount();
    renderStack([{ type: 'Error', value: 'x', runs: [] }]);
    screen.getByText('No frames.');
  });
});
