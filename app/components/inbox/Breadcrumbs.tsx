import type { BreadcrumbDetail } from '#app/server/inbox/inbox-event';
import { formatUtc, isoOf } from './format';

/** Longer text (or more than one line) is folded to its first line, to be opened. */
const ONE_LINE = 120;

/**
 * What happened before the event, oldest first, as Sentry shows it. A long message or data (a
 * console breadcrumb holding a minified stack) is folded to one line with a way to open it.
 * Everything here is event data, rendered as text.
 */
export function Breadcrumbs({ breadcrumbs }: { breadcrumbs: BreadcrumbDetail[] }) {
  if (breadcrumbs.length === 0) return <p>No breadcrumbs.</p>;
  return (
    <ol className="crumbs" aria-label="Breadcrumbs">
      {breadcrumbs.map((crumb, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: fixed order, never reordered
        <li key={index} className="crumb">
          <span className="crumb-head">
            <span className="crumb-category">{crumb.category ?? crumb.type ?? 'default'}</span>
            {crumb.level ? (
              <span className={`crumb-level level-${crumb.level}`}>{crumb.level}</span>
            ) : null}
            {crumb.timestamp ? (
              <time dateTime={isoOf(crumb.timestamp)}>{formatUtc(crumb.timestamp)}</time>
            ) : null}
          </span>
          {crumb.message ? <CrumbText text={crumb.message} kind="message" /> : null}
          {crumb.data ? <CrumbText text={crumb.data} kind="data" /> : null}
        </li>
      ))}
    </ol>
  );
}

function CrumbText({ text, kind }: { text: string; kind: 'message' | 'data' }) {
  const firstLine = text.split('\n', 1)[0] ?? '';
  if (text.length <= ONE_LINE && firstLine === text) {
    return kind === 'data' ? (
      <code className="crumb-data">{text}</code>
    ) : (
      <span className="crumb-message">{text}</span>
    );
  }
  return (
    <details className={`crumb-long crumb-${kind}`}>
      <summary>
        <span className="crumb-line">
          {firstLine.length > ONE_LINE ? `${firstLine.slice(0, ONE_LINE)}…` : `${firstLine} …`}
        </span>
      </summary>
      <pre>{text}</pre>
    </details>
  );
}
