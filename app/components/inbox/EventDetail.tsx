/**
 * One event of an issue as /errors shows it: the facts (time, release, environment, browser),
 * then the stack and breadcrumbs.
 */
import { Link } from '@tanstack/react-router';
import type { EventSummary, UnshownEvent } from '#app/server/inbox/inbox-event';
import type { ShownEvent } from '#app/server/inbox.functions';
import { Breadcrumbs } from './Breadcrumbs';
import { formatUtc, isoOf } from './format';
import { StackTrace } from './StackTrace';

/**
 * One stored event of an issue, as Sentry shows it: its facts, its stack through the build's
 * source maps, breadcrumbs and tags, with links to the issue's older and newer events.
 */
export function EventDetail({
  issueId,
  event,
}: {
  issueId: number;
  event: ShownEvent | UnshownEvent;
}) {
  if ('unshown' in event) {
    return (
      <section className="event" aria-labelledby="event-heading">
        <h2 id="event-heading">This event could not be shown</h2>
        <p>
          The inbox holds an event with the id <code className="event-id">{event.eventId}</code>,
          but it could not be read as one. The server log says why.
        </p>
      </section>
    );
  }
  return (
    <section className="event" aria-labelledby="event-heading">
      <div className="event-top">
        <h2 id="event-heading">{event.latest ? 'Latest event' : 'Event'}</h2>
        <EventNav issueId={issueId} event={event} />
      </div>
      <p className="event-headline">{headline(event)}</p>
      <dl className="facts">
        <dt>Event id</dt>
        <dd>
          <code className="event-id">{event.eventId}</code>
        </dd>
        <dt>Time</dt>
        <dd>
          <time dateTime={isoOf(event.timestamp ?? event.receivedAt)}>
            {formatUtc(event.timestamp ?? event.receivedAt)}
          </time>
        </dd>
        <EventFacts event={event} withRelease />
      </dl>
      <section aria-labelledby="stack-heading">
        <h3 id="stack-heading">Stack trace</h3>
        <StackTrace exceptions={event.stack} />
      </section>
      <section aria-labelledby="breadcrumbs-heading">
        <h3 id="breadcrumbs-heading">Breadcrumbs</h3>
        <Breadcrumbs breadcrumbs={event.breadcrumbs} />
      </section>
      <section aria-labelledby="event-tags-heading">
        <h3 id="event-tags-heading">Tags of this event</h3>
        {event.tags.length === 0 ? (
          <p>No tags.</p>
        ) : (
          <dl className="facts event-tags" aria-label="Tags of this event">
            {event.tags.map(([key, value], index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a key may repeat in a list of pairs
              <div key={index} className="tag">
                <dt>{key}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>
    </section>
  );
}

/** Older and newer among the issue's stored events, and back to the latest. */
function EventNav({ issueId, event }: { issueId: number; event: ShownEvent }) {
  const params = { issueId: String(issueId) };
  return (
    <nav className="event-nav" aria-label="Events of this issue">
      {event.olderId ? (
        <Link to="/errors/issues/$issueId" params={params} search={{ event: event.olderId }}>
          ← Older
        </Link>
      ) : (
        <span className="muted">← Older</span>
      )}
      {event.newerId ? (
        <Link to="/errors/issues/$issueId" params={params} search={{ event: event.newerId }}>
          Newer →
        </Link>
      ) : (
        <span className="muted">Newer →</span>
      )}
      {event.latest ? null : (
        <Link to="/errors/issues/$issueId" params={params} search={{}}>
          Latest
        </Link>
      )}
    </nav>
  );
}

/** "TypeError: x is not a function", or the message alone for a message event. */
export function headline(event: { type: string; message: string }): string {
  if (event.type && event.message) return `${event.type}: ${event.message}`;
  return event.type || event.message || '(no message)';
}

/**
 * The facts the list and the detail view both show about an event, as `<dt>`/`<dd>` pairs for
 * the caller's `<dl>`. The digest only appears for server-side failures, which carry one.
 */
export function EventFacts({
  event,
  withRelease = false,
}: {
  event: EventSummary;
  withRelease?: boolean;
}) {
  return (
    <>
      <dt>Level</dt>
      <dd className={`level level-${event.level}`}>{event.level}</dd>
      <dt>Page</dt>
      <dd className="inbox-url">{event.url ?? 'no page URL'}</dd>
      <dt>Environment</dt>
      <dd>{event.environment ?? 'not set'}</dd>
      {withRelease ? (
        <>
          <dt>Release</dt>
          <dd>{event.release ?? 'not set'}</dd>
        </>
      ) : null}
      {event.digest ? (
        <>
          <dt>Digest</dt>
          <dd>
            <code>{event.digest}</code>
          </dd>
        </>
      ) : null}
    </>
  );
}
