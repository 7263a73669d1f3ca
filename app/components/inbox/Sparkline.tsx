import { countOf } from './count-of';

const WIDTH = 96;
const HEIGHT = 24;

/**
 * An issue's last 24 hours at a glance: one bar an hour, oldest on the left, scaled to the
 * busiest hour. Inline SVG, no script; its name says the same in words.
 */
export function Sparkline({ hourly }: { hourly: readonly number[] }) {
  const total = hourly.reduce((sum, count) => sum + count, 0);
  const peak = Math.max(0, ...hourly);
  const slot = WIDTH / Math.max(1, hourly.length);
  const label =
    total === 0
      ? 'No events in the last 24 hours'
      : `${countOf(total, 'event')} in the last 24 hours, at most ${peak} in an hour`;
  return (
    <svg
      className="sparkline"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      width={WIDTH}
      height={HEIGHT}
      role="img"
      aria-label={label}
    >
      <line className="sparkline-base" x1={0} y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} />
      {hourly.map((count, hour) => {
        if (count === 0) return null;
        // At least a pixel and a half: a single event next to a busy hour stays visible.
        const height = Math.max(1.5, (count / peak) * HEIGHT);
        return (
          <rect
            // biome-ignore lint/suspicious/noArrayIndexKey: one bar per hour, by position
            key={hour}
            className="sparkline-bar"
            x={hour * slot + 0.5}
            y={HEIGHT - height}
            width={slot - 1}
            height={height}
            data-count={count}
          />
        );
      })}
    </svg>
  );
}
