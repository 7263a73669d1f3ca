import type { IssueDetail } from '#app/server/inbox/store/inbox-database.server';
import { countOf } from './format';

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
