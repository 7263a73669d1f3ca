/**
 * An issue's figures: its counts drawn as plain SVG (the sparkline in the list, the histogram on
 * the issue page; same counts, two sizes) and what its events have in common (the tag breakdown).
 */

import type { IssueDetail } from '#app/server/inbox/store/inbox-reads.server';
import { countOf } from './format';

const WIDTH = 96;
const SPARKLINE_HEIGHT = 24;
const BAR = 10;
const HISTOGRAM_HEIGHT = 60;
const DAY_MS = 86_400_000;

interface BarsProps {
  counts: readonly number[];
  /** `sparkline` or `histogram`: the class of the chart's base line (`-base`) and bars (`-bar`). */
  kind: string;
  height: number;
  /** Each bar's slot; the bar leaves `gap` of it empty. */
  slot: number;
  gap: number;
  /** The shortest bar drawn: a single event next to a busy slot stays visible. */
  minBar: number;
  /** A bar's tooltip, if it has one. */
  title?: (count: number, index: number) => string;
}

/** Bars scaled to the busiest slot, oldest on the left, over a base line; none for a zero. */
function Bars({ counts, kind, height, slot, gap, minBar, title }: BarsProps) {
  const peak = Math.max(0, ...counts);
  return (
    <>
      <line
        className={`${kind}-base`}
        x1={0}
        y1={height - 0.5}
        x2={slot * counts.length}
        y2={height - 0.5}
      />
      {counts.map((count, index) => {
        if (count === 0) return null;
        const barHeight = Math.max(minBar, (count / peak) * height);
        return (
          <rect
            // biome-ignore lint/suspicious/noArrayIndexKey: one bar per slot, by position
            key={index}
            className={`${kind}-bar`}
            x={index * slot + gap / 2}
            y={height - barHeight}
            width={slot - gap}
            height={barHeight}
            data-count={count}
          >
            {title ? <title>{title(count, index)}</title> : null}
          </rect>
        );
      })}
    </>
  );
}

/**
 * An issue's last 24 hours at a glance: one bar an hour, oldest on the left, scaled to the
 * busiest hour. Inline SVG, no script; its name says the same in words.
 */
export function Sparkline({ hourly }: { hourly: readonly number[] }) {
  const total = hourly.reduce((sum, count) => sum + count, 0);
  const peak = Math.max(0, ...hourly);
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
      <Bars
        counts={hourly}
        kind="sparkline"
        height={SPARKLINE_HEIGHT}
        slot={WIDTH / Math.max(1, hourly.length)}
        gap={1}
        minBar={1.5}
      />
    </svg>
  );
}

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
  const busiest = daily.indexOf(peak);
  const summary =
    total === 0
      ? `No events in the last ${daily.length} days`
      : `${countOf(total, 'event')} in the last ${daily.length} days, most on ${dayOf(busiest)} (${peak})`;
  return (
    <figure className="histogram">
      <svg
        viewBox={`0 0 ${BAR * daily.length} ${HISTOGRAM_HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={summary}
      >
        <Bars
          counts={daily}
          kind="histogram"
          height={HISTOGRAM_HEIGHT}
          slot={BAR}
          gap={2}
          minBar={2}
          title={(count, index) => `${dayOf(index)}: ${countOf(count, 'event')}`}
        />
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
