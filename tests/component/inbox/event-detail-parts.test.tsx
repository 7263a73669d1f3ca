import { fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Breadcrumbs } from '#app/components/inbox/Breadcrumbs';
import { crashFree, ReleaseHealth, receivedLine } from '#app/components/inbox/ReleaseHealth';

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
    expect(screen.getByText('No breadcrumbs.')).toBeTruthy();
  });
});

describe('ReleaseHealth', () => {
  it('shows sessions, crashed, errored and the crash-free rate per release and environment', () => {
    render(
      <ReleaseHealth
        health={[
          {
            release: 'app@1.0.0',
            environment: 'production',
            sessions: 8,
            crashed: 1,
            errored: 2,
            abnormal: 0,
            crashFreeRate: 0.875,
          },
          {
            release: 'app@2.0.0',
            environment: 'development',
            sessions: 0,
            crashed: 0,
            errored: 0,
            abnormal: 0,
          },
        ]}
      />,
    );
    const rows = screen.getAllByRole('row').map((row) =>
      within(row)
        .queryAllByRole('cell')
        .map((cell) => cell.textContent),
    );
    expect(rows.slice(1)).toEqual([
      ['app@1.0.0', 'production', '8', '1', '2', '87.5%'],
      ['app@2.0.0', 'development', '0', '0', '0', 'no sessions'],
    ]);
  });

  it('never rounds a crash up to a perfect rate', () => {
    expect(crashFree(1)).toBe('100%');
    expect(crashFree(0.99999)).toBe('99.99%');
    expect(crashFree(0)).toBe('0%');
  });

  it('names the other items received, not events', () => {
    expect(receivedLine({ event: 3, session: 15, span: 2, client_report: 1 })).toBe(
      'Also received: 15 sessions, 2 spans, 1 client report.',
    );
    expect(receivedLine({ event: 3 })).toBeUndefined();
  });
});
