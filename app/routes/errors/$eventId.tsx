import { createFileRoute, Link } from '@tanstack/react-router';
import { Breadcrumbs } from '#app/components/inbox/Breadcrumbs';
import { EventFacts } from '#app/components/inbox/EventFacts';
import { headline } from '#app/components/inbox/EventList';
import { formatUtc } from '#app/components/inbox/format-time';
import { SignOut } from '#app/components/inbox/SignOut';
import { StackTrace } from '#app/components/inbox/StackTrace';
import { getInboxEvent } from '#app/server/inbox.functions';

export const Route = createFileRoute('/errors/$eventId')({
  loader: ({ params }) => getInboxEvent({ data: { eventId: params.eventId } }),
  head: () => ({ meta: [{ title: 'Captured event · Start Monitoring' }] }),
  component: EventPage,
});

function EventPage() {
  const event = Route.useLoaderData();
  if ('unshown' in event) return <UnshownEvent eventId={event.eventId} signedIn={event.signedIn} />;
  return (
    <main className="page">
      <p>
        <Link to="/errors">← All captured events</Link>
      </p>
      {event.signedIn ? <SignOut /> : null}
      <h1 className="event-headline">{headline(event)}</h1>
      <dl className="facts">
        <dt>Event id</dt>
        <dd>
          <code>{event.eventId}</code>
        </dd>
        <dt>Time</dt>
        <dd>
          <time dateTime={event.timestamp}>{formatUtc(event.timestamp)}</time>
        </dd>
        <EventFacts event={event} withRelease />
      </dl>
      <section aria-labelledby="stack-heading">
        <h2 id="stack-heading">Stack trace</h2>
        <StackTrace exceptions={event.stack} />
      </section>
      <section aria-labelledby="breadcrumbs-heading">
        <h2 id="breadcrumbs-heading">Breadcrumbs</h2>
        <Breadcrumbs breadcrumbs={event.breadcrumbs} />
      </section>
      <section aria-labelledby="tags-heading">
        <h2 id="tags-heading">Tags</h2>
        {event.tags.length === 0 ? (
          <p>No tags.</p>
        ) : (
          <dl className="facts" aria-label="Tags">
            {event.tags.map(([key, value]) => (
              <div key={key} className="tag">
                <dt>{key}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>
    </main>
  );
}

/** An entry the server could not turn into a page: the rest of the inbox is still there. */
function UnshownEvent({ eventId, signedIn }: { eventId: string; signedIn: boolean }) {
  return (
    <main className="page">
      <p>
        <Link to="/errors">← All captured events</Link>
      </p>
      {signedIn ? <SignOut /> : null}
      <h1>This event could not be shown</h1>
      <p>
        The inbox holds an event with the id <code>{eventId}</code>, but it could not be read as
        one. The server log says why.
      </p>
    </main>
  );
}
