import { countOf } from './count-of';

const BAR = 10;
const HEIGHT = 60;
const DAY_MS = 86_400_000;

/**
 * An issue's events per day over the last 30 days, oldest on the left, ending `today` (UTC,
 * `YYYY-MM-DD`). Inline SVG that stretches to the width it is given; each bar's title names its
 * day and count (a tooltip), and the figure's caption says the total.
 */
export function Histogram({ daily, today }: { daily: readonly number[]; today: string }) {
  const total = daily.reduce((sum, count) => sum + count, 0);
  const peak = Math.max(0, ...daily);
  const end = Date.parse(`${today}T00:00:00Z`);
  const dayOf = (index: number) =>
    Number.isNaN(end)
      ? `day ${index + 1}`
      : new Date(end - (daily.length - 1 - index) * DAY_MS).toISOString().slice(0, 10);
  const width = BAR * daily.length;
  const busiest = daily.indexOf(peak);
  const summary =
    total === 0
      ? `No events in the last ${daily.length} days`
      : `${countOf(total, 'event')} in the last ${daily.length} days, most on ${dayOf(busiest)} (${peak})`;
  return (
    <figure className="histogram">
      <svg
        viewBox={`0 0 ${width} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={summary}
      >
        <line className="histogram-base" x1={0} y1={HEIGHT - 0.5} x2={width} y2={HEIGHT - 0.5} />
        {daily.map((count, index) => {
          if (count === 0) return null;
          const height = Math.max(2, (count / peak) * HEIGHT);
          return (
            <rect
              // biome-ignore lint/suspicious/noArrayIndexKey: one bar per day, by position
              key={index}
              className="histogram-bar"
              x={index * BAR + 1}
              y={HEIGHT - height}
              width={BAR - 2}
              height={height}
              data-count={count}
            >
              <title>{`${dayOf(index)}: ${countOf(count, 'event')}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption>
        <span className="histogram-axis">
          <span>{dayOf(0)}</span>
          <span>{dayOf(daily.length - 1)}</span>
        </span>
        <span>{summary}</span>
      </figcaption>
    </figure>
  );
}
