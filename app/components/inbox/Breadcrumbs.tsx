import type { BreadcrumbDetail } from '#app/server/inbox/inbox-event';
import { formatUtc } from './format-time';

/** What happened before the event, oldest first, as Sentry shows it. */
export function Breadcrumbs({ breadcrumbs }: { breadcrumbs: BreadcrumbDetail[] }) {
  if (breadcrumbs.length === 0) return <p>No breadcrumbs.</p>;
  return (
    <table className="inbox-table">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Category</th>
          <th scope="col">Level</th>
          <th scope="col">Message or data</th>
        </tr>
      </thead>
      <tbody>
        {breadcrumbs.map((crumb, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: fixed order, never reordered
          <tr key={index}>
            <td>{crumb.timestamp ? formatUtc(crumb.timestamp) : ''}</td>
            <td>{crumb.category ?? crumb.type ?? ''}</td>
            <td>{crumb.level ?? ''}</td>
            <td>
              {crumb.message ?? ''}
              {crumb.data ? <code className="crumb-data">{crumb.data}</code> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
