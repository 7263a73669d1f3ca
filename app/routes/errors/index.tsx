import { createFileRoute, Link, notFound } from '@tanstack/react-router';
import * as v from 'valibot';
import { ClearInbox } from '#app/components/inbox/ClearInbox';
import { countOf } from '#app/components/inbox/count-of';
import { EventList } from '#app/components/inbox/EventList';
import { SignOut } from '#app/components/inbox/SignOut';
import { useSiteConfig } from '#app/components/use-site-config';
import { InboxPageInput, listInboxEvents } from '#app/server/inbox.functions';
import { inboxPagesOnly } from './-inbox-only';

/** What `page` becomes when it is not a page number the inbox could have (`?page=1e20`). */
const NO_SUCH_PAGE = 0;

// A bad `confirm` or `cleared` is dropped; a bad page number is the not-found page.
const count = v.pipe(v.string(), v.regex(/^\d{1,15}$/), v.transform(Number));
const ErrorsSearch = v.object({
  page: v.optional(v.fallback(v.pipe(count, InboxPageInput.entries.page), NO_SUCH_PAGE)),
  confirm: v.fallback(v.optional(v.literal('clear')), undefined),
  cleared: v.fallback(v.optional(count), undefined),
});

export const Route = createFileRoute('/errors/')({
  validateSearch: ErrorsSearch,
  loaderDeps: ({ search }) => ({ page: search.page ?? 1 }),
  async loader(match) {
    inboxPagesOnly(match);
    const { page } = match.deps;
    if (page === NO_SUCH_PAGE) throw notFound();
    const inbox = await listInboxEvents({ data: { page } });
    // Past the last page (the first always exists, empty or not).
    if (inbox.page !== page) throw notFound();
    return inbox;
  },
  head: () => ({ meta: [{ title: 'Error inbox · Start Monitoring' }] }),
  component: ErrorInbox,
});

function ErrorInbox() {
  const inbox = Route.useLoaderData();
  const search = Route.useSearch();
  return (
    <main className="page">
      <h1>Error inbox</h1>
      {inbox.signedIn ? <SignOut /> : null}
      <p className="muted">
        Local inbox mode: what this app would have sent to Sentry, kept in{' '}
        <code>{inbox.inboxDir}</code> (the newest 1,000 envelopes).
      </p>
      {search.cleared !== undefined ? (
        <p role="status">{`Inbox cleared: ${countOf(search.cleared, 'envelope')} deleted.`}</p>
      ) : null}
      <p data-testid="inbox-counts">{countsLine(inbox)}</p>
      {inbox.events.length === 0 ? <EmptyInbox /> : <EventList events={inbox.events} />}
      {inbox.pageCount > 1 ? (
        <nav aria-label="Pages" className="inbox-pages">
          {inbox.page > 1 ? (
            <Link to="/errors" search={{ page: String(inbox.page - 1) }}>
              Newer
            </Link>
          ) : null}{' '}
          <span>{`Page ${inbox.page} of ${inbox.pageCount}`}</span>{' '}
          {inbox.page < inbox.pageCount ? (
            <Link to="/errors" search={{ page: String(inbox.page + 1) }}>
              Older
            </Link>
          ) : null}
        </nav>
      ) : null}
      <ClearInbox envelopeCount={inbox.envelopeCount} confirming={search.confirm === 'clear'} />
    </main>
  );
}

/** "2 events in 3 envelopes; also received: 1 session." */
function countsLine(inbox: {
  eventCount: number;
  envelopeCount: number;
  itemCounts: Record<string, number>;
}) {
  const others = Object.entries(inbox.itemCounts)
    .filter(([type]) => type !== 'event')
    .map(([type, count]) => `${count} ${type}`);
  const also = others.length > 0 ? `; also received: ${others.join(', ')}` : '';
  return `${countOf(inbox.eventCount, 'event')} in ${countOf(inbox.envelopeCount, 'envelope')}${also}.`;
}

/** What to do to see something here: the example page fails on purpose. */
function EmptyInbox() {
  const examplePage = useSiteConfig()?.links.examplePage;
  return (
    <p>
      No errors captured yet. Errors thrown in this app show up here.{' '}
      {examplePage ? (
        <>
          To make one, use the buttons of the <Link to="/sentry-example-page">example page</Link>.
        </>
      ) : (
        <>
          To make one, run <code>npm run dev</code>, or start with{' '}
          <code>ENABLE_EXAMPLE_ROUTES=1</code>, and use the buttons of{' '}
          <code>/sentry-example-page</code>.
        </>
      )}
    </p>
  );
}
