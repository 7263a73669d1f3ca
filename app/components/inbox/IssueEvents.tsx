/**
 * An issue's stored events, newest first, a page at a time: when each came ("3 minutes ago", the
 * exact time in its `<time>`), linking to the event on the issue's page, and a link to the next
 * (older) page. The event on view is marked.
 */
import { Link } from '@tanstack/react-router';
import type { EventPage } from '#app/server/inbox/store/inbox-reads.server';
import { formatUtc, isoOf, timeAgo } from './format';

export function IssueEvents({
  issueId,
  page,
  now,
  before,
  shownEventId,
}: {
  issueId: number;
  page: EventPage;
  /** The server's time the page was read at: "3 minutes ago" counts from it. */
  now: number;
  /** Where this page starts (`?before=`), unset on the first. */
  before?: string;
  /** The event the page shows, marked in the list. */
  shownEventId?: string;
}) {
  const params = { issueId: String(issueId) };
  // The list stays where it is when an event of it is opened, and the event when it pages.
  const staying = before === undefined ? {} : { before };
  const shown = shownEventId === undefined ? {} : { event: shownEventId };
  return (
    <section className="issue-event-list" aria-labelledby="events-list-heading">
      <h2 id="events-list-heading">{before === undefined ? 'Events' : 'Older events'}</h2>
      {page.events.length === 0 ? (
        <p>No stored events.</p>
      ) : (
        <ol className="event-list" aria-label="Events of this issue, newest first">
          {page.events.map((event) => (
            <li key={event.eventId}>
              {/* The router marks the link to the current URL the same way (aria-current="page"):
                  this also marks the latest event when no `?event=` names it. */}
              <Link
                to="/errors/issues/$issueId"
                params={params}
                search={{ ...staying, event: event.eventId }}
                aria-current={event.eventId === shownEventId ? 'page' : undefined}
              >
                <time dateTime={isoOf(event.receivedAt)} title={formatUtc(event.receivedAt)}>
                  {timeAgo(event.receivedAt, now)}
                </time>{' '}
                <code>{event.eventId.slice(0, 8)}</code>
              </Link>
              <span className="event-list-facts">
                {[event.environment, event.release].filter(Boolean).join(' · ')}
              </span>
            </li>
          ))}
        </ol>
      )}
      <nav className="event-list-nav" aria-label="Pages of events">
        {before === undefined ? null : (
          <Link to="/errors/issues/$issueId" params={params} search={shown}>
            Newest events
          </Link>
        )}
        {page.nextBefore ? (
          <Link
            to="/errors/issues/$issueId"
            params={params}
            search={{ ...shown, before: page.nextBefore }}
          >
            Older events →
          </Link>
        ) : null}
      </nav>
    </section>
  );
}
