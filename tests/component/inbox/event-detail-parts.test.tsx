import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Breadcrumbs } from '../../../app/components/inbox/Breadcrumbs';
import { StackTrace } from '../../../app/components/inbox/StackTrace';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';

describe('StackTrace', () => {
  it('lists frames in the given order with file:line:col and marks in-app frames', () => {
    render(
      <StackTrace
        exceptions={[
          {
            type: 'TypeError',
            value: HOSTILE,
            frames: [
              { filename: 'app.js', function: 'mine', lineno: 3, colno: 9, inApp: true },
              { filename: 'vendor.js', lineno: 1, inApp: false },
              { inApp: false },
            ],
          },
        ]}
      />,
    );
    expect(screen.getByRole('heading', { name: `TypeError: ${HOSTILE}` })).toBeTruthy();
    expect(document.querySelector('img')).toBeNull();
    const frames = within(screen.getByRole('list', { name: 'Stack frames' })).getAllByRole(
      'listitem',
    );
    expect(frames.map((frame) => frame.textContent)).toEqual([
      'mine at app.js:3:9 in app',
      '<anonymous> at vendor.js:1',
      '<anonymous> at <unknown file>',
    ]);
  });

  it('says so when there is no stack', () => {
    render(<StackTrace exceptions={[]} />);
    expect(screen.getByText('This event has no stack trace.')).toBeTruthy();
  });
});

describe('Breadcrumbs', () => {
  it('shows each crumb as a row, with its data as text', () => {
    render(
      <Breadcrumbs
        breadcrumbs={[
          { timestamp: '2025-11-22T01:59:59.000Z', category: 'ui.click', message: 'button' },
          { type: 'http', level: 'warning', data: `{"url":"${HOSTILE}"}` },
        ]}
      />,
    );
    const rows = screen.getAllByRole('row').slice(1);
    expect(rows.map((row) => row.textContent)).toEqual([
      '2025-11-22 01:59:59 UTCui.clickbutton',
      `httpwarning{"url":"${HOSTILE}"}`,
    ]);
    expect(document.querySelector('img')).toBeNull();
  });
});
