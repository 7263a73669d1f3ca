import { Link } from '@tanstack/react-router';
import type { ListedEvent } from '#app/server/inbox/inbox-view';
import { EventFacts } from './EventFacts';
import { formatUtc } from './format-time';

/** The captured events, newest first: one list item per event. */
export function EventList({ events }: { events: ListedEvent[] }) {
  return (
    <ol className="inbox-list" aria-label="Captured events">
      {events.map((event) => (
        <li key={event.eventId} className="inbox-event" data-testid="inbox-event">
          <Link to="/errors/$eventId" params={{ eventId: event.eventId }} className="inbox-title">
            {headline(event)}
          </Link>
          <dl className="inbox-meta">
            <dt>Time</dt>
            <dd>
              <time dateTime={event.timestamp ?? event.receivedAt}>
                {formatUtc(event.timestamp ?? event.receivedAt)}
              </time>
            </dd>
            {event.topFrame ? (
              <>
                <dt>Thrown at</dt>
                <dd>
                  <code className="inbox-top-frame">{event.topFrame}</code>
                </dd>
              </>
            ) : null}
            <EventFacts event={event} />
          </dl>
        </li>
      ))}
    </ol>
  );
}

/** "TypeError: x is not a function", or the message alone for a message event. */
export function headline(event: { type: string; message: string }): string {
  if (event.type && event.message) return `${event.type}: ${event.message}`;
  return event.type || event.message || '(no message)';
}
