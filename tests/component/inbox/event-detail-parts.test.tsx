import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Breadcrumbs } from '#app/components/inbox/Breadcrumbs';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';

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
