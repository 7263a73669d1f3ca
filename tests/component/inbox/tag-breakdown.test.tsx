import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TagBreakdown } from '#app/components/inbox/TagBreakdown';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';

const shares = (name: string) =>
  within(screen.getByRole('region', { name }))
    .getAllByRole('listitem')
    .map((item) => item.textContent);

describe('TagBreakdown', () => {
  it('shows each tag’s values as shares of the events that had it, most frequent first', () => {
    render(
      <TagBreakdown
        tags={[
          {
            key: 'browser',
            total: 3,
            values: [
              { value: 'Chrome 156', count: 2 },
              { value: 'Firefox 140', count: 1 },
            ],
          },
          {
            key: 'url',
            total: 1000,
            values: [
              { value: 'http://localhost:3000/a', count: 999 },
              { value: 'http://localhost:3000/b', count: 1 },
            ],
          },
        ]}
      />,
    );
    expect(shares('Browser')).toEqual(['Chrome 15667%', 'Firefox 14033%']);
    // A share that rounds to nothing still shows it is there.
    expect(shares('Page')).toEqual(['http://localhost:3000/a100%', 'http://localhost:3000/b<1%']);
  });

  it('puts environment, release, browser, OS and page first, then the rest by name', () => {
    const tag = (key: string) => ({ key, total: 1, values: [{ value: 'v', count: 1 }] });
    render(
      <TagBreakdown
        tags={['zeta', 'url', 'os', 'alpha', 'browser', 'release', 'environment'].map(tag)}
      />,
    );
    expect(screen.getAllByRole('heading').map((heading) => heading.textContent)).toEqual([
      'Environment (1 event)',
      'Release (1 event)',
      'Browser (1 event)',
      'OS (1 event)',
      'Page (1 event)',
      'alpha (1 event)',
      'zeta (1 event)',
    ]);
  });

  it('sums the values past the fifth as others', () => {
    render(
      <TagBreakdown
        tags={[
          {
            key: 'os',
            total: 10,
            values: ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((value, n) => ({
              value,
              count: n < 3 ? 2 : 1,
            })),
          },
        ]}
      />,
    );
    expect(shares('OS')).toEqual(['a20%', 'b20%', 'c20%', 'd10%', 'e10%', '2 other values20%']);
  });

  it('keeps hostile values as text, and says when there are no tags', () => {
    const { unmount } = render(
      <TagBreakdown tags={[{ key: HOSTILE, total: 1, values: [{ value: HOSTILE, count: 1 }] }]} />,
    );
    expect(shares(HOSTILE)).toEqual([`${HOSTILE}100%`]);
    expect(document.querySelector('img')).toBeNull();
    unmount();
    render(<TagBreakdown tags={[]} />);
    expect(screen.getByText('No tags.')).toBeTruthy();
  });
});
