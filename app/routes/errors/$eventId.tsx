import { createFileRoute, Link, notFound } from '@tanstack/react-router';
import * as v from 'valibot';
import { Breadcrumbs } from '#app/components/inbox/Breadcrumbs';
import { EventFacts } from '#app/components/inbox/EventFacts';
import { headline } from '#app/components/inbox/EventList';
import { formatUtc } from '#app/components/inbox/format-time';
import { SignOut } from '#app/components/inbox/SignOut';
import { StackTrace } from '#app/components/inbox/StackTrace';
import { getInboxEvent, InboxEventInput } from '#app/server/inbox.functions';
import { inboxPagesOnly } from './-inbox-only';

export const Route = createFileRoute('/errors/$eventId')({
  // A method, not an arrow: a mapped stack names an arrow after its first parameter.
  loader(match) {
    inboxPagesOnly(match);
    // An id no event can have (over-long, say) is the URL's fault: the not-found page, not a
    // failed server-function call and a 500.
    const input = v.safeParse(InboxEventInput, { eventId: match.params.eventId });
    if (!input.success) throw notFound();
    return getInboxEvent({ data: input.output });
  },
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
