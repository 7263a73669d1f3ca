/**
 * An issue's figures: charts and the tag breakdown.
 */
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Histogram, Sparkline, TagBreakdown } from '#app/components/inbox/Charts';

const bars = (selector: string) =>
  [...document.querySelectorAll<SVGRectElement>(selector)].map((bar) => ({
    count: Number(bar.dataset.count),
    height: Number(bar.getAttribute('height')),
    x: Number(bar.getAttribute('x')),
  }));

describe('Sparkline', () => {
  it('draws one bar per hour with events, oldest left, scaled to the busiest hour', () => {
    const hourly = Array<number>(24).fill(0);
    hourly[0] = 1;
    hourly[12] = 2;
    hourly[23] = 8;
    render(<Sparkline hourly={hourly} />);
    // Found by its accessible name, which says what the sparkline draws.
    screen.getByRole('img', { name: '11 events in the last 24 hours, at most 8 in an hour' });
    const drawn = bars('.sparkline-bar');
    expect(drawn.map((bar) => bar.count)).toEqual([1, 2, 8]);
    expect(drawn[0]?.x).toBeLessThan(drawn[1]?.x ?? 0);
    expect(drawn[1]?.x).toBeLessThan(drawn[2]?.x ?? 0);
    // The busiest hour fills the height; the others in proportion (a quarter, here).
    expect(drawn[2]?.height).toBe(24);
    expect(drawn[1]?.height).toBe(6);
    // One event beside eight is still visible.
    expect(drawn[0]?.height).toBeGreaterThanOrEqual(1.5);
  });

  it('says when there is nothing to draw', () => {
    render(<Sparkline hourly={Array(24).fill(0)} />);
    screen.getByRole('img', { name: 'No events in the last 24 hours' });
    expect(bars('.sparkline-bar')).toEqual([]);
  });
});

describe('Histogram', () => {
  const daily = Array<number>(30).fill(0);
  daily[0] = 1;
  daily[26] = 5;
  daily[29] = 2;

  it('draws 30 days ending today, each bar titled with its day and count', () => {
    render(<Histogram daily={daily} today="2026-11-26" />);
    // Found by its accessible name, which says what the histogram draws.
    screen.getByRole('img', { name: '8 events in the last 30 days, most on 2026-11-23 (5)' });
    const titles = [...document.querySelectorAll('.histogram-bar title')].map((t) => t.textContent);
    expect(titles).toEqual(['2026-10-28: 1 event', '2026-11-23: 5 events', '2026-11-26: 2 events']);
    const drawn = bars('.histogram-bar');
    expect(drawn.map((bar) => bar.height)).toEqual([12, 60, 24]);
    // From the first day to today, under the bars.
    expect(document.querySelector('.histogram-axis')?.textContent).toBe('2026-10-282026-11-26');
  });

  it('says when the issue had no events in those days', () => {
    render(<Histogram daily={Array(30).fill(0)} today="2026-11-26" />);
    screen.getByRole('img', { name: 'No events in the last 30 days' });
    expect(bars('.histogram-bar')).toEqual([]);
  });
});

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
    screen.getByText('No tags.');
  });
});
