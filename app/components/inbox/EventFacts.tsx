import type { EventSummary } from '#app/server/inbox/inbox-event';

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
