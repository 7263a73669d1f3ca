/**
 * An issue's figures: its counts drawn as plain SVG (the sparkline in the list, the histogram on
 * the issue page; same counts, two sizes) and what its events have in common (the tag breakdown).
 */

import type { IssueDetail } from '#app/server/inbox/store/inbox-database.server';
import { countOf } from './format';

const WIDTH = 96;
const SPARKLINE_HEIGHT = 24;

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
      viewBox={`0 0 ${WIDTH} ${SPARKLINE_HEIGHT}`}
      width={WIDTH}
      height={SPARKLINE_HEIGHT}
      role="img"
      aria-label={label}
    >
      <line
        className="sparkline-base"
        x1={0}
        y1={SPARKLINE_HEIGHT - 0.5}
        x2={WIDTH}
        y2={SPARKLINE_HEIGHT - 0.5}
      />
      {hourly.map((count, hour) => {
        if (count === 0) return null;
        // At least a pixel and a half: a single event next to a busy hour stays visible.
        const height = Math.max(1.5, (count / peak) * SPARKLINE_HEIGHT);
        return (
          <rect
            // biome-ignore lint/suspicious/noArrayIndexKey: one bar per hour, by position
            key={hour}
            className="sparkline-bar"
            x={hour * slot + 0.5}
            y={SPARKLINE_HEIGHT - height}
            width={slot - 1}
            height={height}
            data-count={count}
          />
        );
      })}
    </svg>
  );
}

const BAR = 10;
const HISTOGRAM_HEIGHT = 60;
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
        viewBox={`0 0 ${width} ${HISTOGRAM_HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={summary}
      >
        <line
          className="histogram-base"
          x1={0}
          y1={HISTOGRAM_HEIGHT - 0.5}
          x2={width}
          y2={HISTOGRAM_HEIGHT - 0.5}
        />
        {daily.map((count, index) => {
          if (count === 0) return null;
          const height = Math.max(2, (count / peak) * HISTOGRAM_HEIGHT);
          return (
            <rect
              // biome-ignore lint/suspicious/noArrayIndexKey: one bar per day, by position
              key={index}
              className="histogram-bar"
              x={index * BAR + 1}
              y={HISTOGRAM_HEIGHT - height}
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

/** The tags a reader looks at first, in this order, with the names Sentry gives them. */
const FIRST: Array<[key: string, label: string]> = [
  ['environment', 'Environment'],
  ['release', 'Release'],
  ['browser', 'Browser'],
  ['os', 'OS'],
  ['url', 'Page'],
  ['transaction', 'Route'],
];
const VALUES_SHOWN = 5;

/**
 * What an issue's events have in common: for each tag, its most frequent values as shares of
 * the events that had the tag. Values are event data, shown as text.
 */
export function TagBreakdown({ tags }: { tags: IssueDetail['tags'] }) {
  if (tags.length === 0) return <p>No tags.</p>;
  const order = new Map(FIRST.map(([key], index) => [key, index]));
  const sorted = [...tags].sort(
    (a, b) =>
      (order.get(a.key) ?? FIRST.length) - (order.get(b.key) ?? FIRST.length) ||
      a.key.localeCompare(b.key),
  );
  return (
    <div className="tag-breakdown">
      {sorted.map((tag) => {
        const label = FIRST.find(([key]) => key === tag.key)?.[1] ?? tag.key;
        const shown = tag.values.slice(0, VALUES_SHOWN);
        const rest = tag.values.slice(VALUES_SHOWN).reduce((sum, value) => sum + value.count, 0);
        return (
          <section key={tag.key} className="tag-key" aria-label={label}>
            <h3>
              {label} <span className="muted">{`(${countOf(tag.total, 'event')})`}</span>
            </h3>
            <ul>
              {shown.map((value) => (
                <TagShare
                  key={value.value}
                  value={value.value}
                  share={percentOf(value.count, tag.total)}
                />
              ))}
              {rest > 0 ? (
                <TagShare
                  value={`${countOf(tag.values.length - VALUES_SHOWN, 'other value')}`}
                  share={percentOf(rest, tag.total)}
                  other
                />
              ) : null}
            </ul>
          </section>
        );
      })}
    </div>
  );
}

function TagShare({
  value,
  share,
  other = false,
}: {
  value: string;
  share: number;
  other?: boolean;
}) {
  return (
    <li className={other ? 'tag-share other' : 'tag-share'}>
      <span className="tag-value">{value}</span>
      <span className="tag-percent">{shareText(share)}</span>
      {/* SVG, not a styled width: the pages' CSP allows no inline style. */}
      <svg className="tag-bar" viewBox="0 0 100 1" preserveAspectRatio="none" aria-hidden="true">
        <rect width={share} height={1} />
      </svg>
    </li>
  );
}

function percentOf(count: number, total: number): number {
  return total > 0 ? (count / total) * 100 : 0;
}

/** Whole percents; a share that rounds to nothing still says it is there. */
function shareText(share: number): string {
  if (share > 0 && share < 0.5) return '<1%';
  return `${Math.round(share)}%`;
}
