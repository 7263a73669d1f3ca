import { createFileRoute, Link, notFound } from '@tanstack/react-router';
import { AlertChannels } from '#app/components/inbox/Alerts';
import { countOf } from '#app/components/inbox/format';
import {
  BulkTriage,
  ClearInbox,
  SignOut,
  StorageProblem,
  TRIAGE_DONE,
} from '#app/components/inbox/InboxActions';
import {
  IssueFilters,
  IssueList,
  ReleaseHealth,
  receivedLine,
} from '#app/components/inbox/IssueList';
import { type InboxIssues, listInboxIssues } from '#app/server/inbox/inbox.functions';
import {
  type IssueListFilters,
  type IssueListSearch,
  issueListFiltersOf,
  issueListSearchOf,
} from '#app/server/inbox/inbox-inputs';
import { inboxPagesOnly, pageTitle, useSiteConfig } from '#app/site-config';

export const Route = createFileRoute('/errors/')({
  validateSearch: issueListSearchOf,
  loaderDeps: ({ search: { page, sort, status, environment, release, q } }) => ({
    page,
    sort,
    status,
    environment,
    release,
    q,
  }),
  async loader(match) {
    inboxPagesOnly(match);
    // A value the form never offers (a page number like 1e20, an unknown sort) is the URL's
    // fault: the not-found page.
    const filters = issueListFiltersOf(match.deps);
    if (!filters) throw notFound();
    const inbox = await listInboxIssues({ data: filters });
    // Past the last page (the first always exists, empty or not).
    if (inbox.kind === 'ready' && inbox.page !== filters.page) throw notFound();
    return { inbox, filters };
  },
  head: (context) => ({ meta: [{ title: pageTitle(context, 'Error inbox') }] }),
  component: ErrorInbox,
});

function ErrorInbox() {
  const { inbox, filters } = Route.useLoaderData();
  const search = Route.useSearch();
  return (
    <main className="page inbox-page">
      <div className="inbox-top">
        <h1>Error inbox</h1>
        {inbox.signedIn ? <SignOut /> : null}
      </div>
      {inbox.kind === 'failing' ? (
        <StorageProblem problem={inbox.problem} inboxDir={inbox.inboxDir} />
      ) : (
        <Issues inbox={inbox} filters={filters} search={search} />
      )}
    </main>
  );
}

function Issues({
  inbox,
  filters,
  search,
}: {
  inbox: InboxIssues;
  filters: IssueListFilters;
  search: IssueListSearch;
}) {
  const { totals } = inbox;
  // The list's own params, for the page links: the filters stay, the clear's and triage's do not.
  const { confirm: _, cleared: __, did, changed, ...listSearch } = search;
  const received = receivedLine(inbox.itemCounts);
  return (
    <>
      <p className="muted">
        Local inbox mode: what this app would have sent to Sentry, grouped into issues as Sentry
        groups them, kept in <code>{inbox.inboxDir}</code>.
      </p>
      {inbox.clearing ? (
        <p role="status" data-testid="clear-progress">
          {`Clearing the inbox: ${inbox.clearing.deleted} of ${countOf(inbox.clearing.total, 'issue')} deleted so far. `}
          <Link to="/errors" search={listSearch}>
            Refresh
          </Link>
        </p>
      ) : null}
      {search.cleared !== undefined ? (
        <p role="status">{`Inbox cleared: ${countOf(search.cleared, 'issue')} deleted.`}</p>
      ) : null}
      {did !== undefined && changed !== undefined ? (
        <p role="status" data-testid="triage-done">
          {`${countOf(changed, 'issue')} ${TRIAGE_DONE[did]}.`}
        </p>
      ) : null}
      <p data-testid="inbox-counts">{countsLine(inbox)}</p>
      {totals.issues === 0 ? (
        <EmptyInbox />
      ) : (
        <>
          <IssueFilters
            filters={filters}
            environments={inbox.facets.environments}
            releases={inbox.facets.releases}
          />
          {inbox.hiddenIgnored > 0 ? (
            <p className="muted">
              {`${countOf(inbox.hiddenIgnored, 'ignored issue')} hidden. `}
              <Link to="/errors" search={{ ...listSearch, status: 'ignored', page: undefined }}>
                Show ignored issues
              </Link>
            </p>
          ) : null}
          {inbox.problems.length > 0 ? (
            <p role="alert" data-testid="search-problems">
              {`Cannot search: ${inbox.problems.join('; ')}.`}
            </p>
          ) : inbox.issues.length === 0 ? (
            <p>No issues match these filters.</p>
          ) : (
            <>
              <BulkTriage total={inbox.total} filters={filters} />
              <IssueList issues={inbox.issues} selectable />
            </>
          )}
          {inbox.pageCount > 1 ? (
            <nav aria-label="Pages" className="inbox-pages">
              {inbox.page > 1 ? (
                <Link to="/errors" search={{ ...listSearch, page: String(inbox.page - 1) }}>
                  Previous
                </Link>
              ) : null}{' '}
              <span>{`Page ${inbox.page} of ${inbox.pageCount} (${countOf(inbox.total, 'issue')})`}</span>{' '}
              {inbox.page < inbox.pageCount ? (
                <Link to="/errors" search={{ ...listSearch, page: String(inbox.page + 1) }}>
                  Next
                </Link>
              ) : null}
            </nav>
          ) : null}
        </>
      )}
      <section aria-labelledby="health-heading">
        <h2 id="health-heading">Release health</h2>
        <ReleaseHealth health={inbox.health} />
        {received ? <p data-testid="received-items">{received}</p> : null}
      </section>
      <AlertChannels channels={inbox.alertChannels} />
      {inbox.clearing ? null : (
        <ClearInbox issueCount={totals.issues} confirming={search.confirm === 'clear'} />
      )}
    </>
  );
}

/**
 * The issues and events the list holds: the inbox's own when nothing narrows it, else what
 * matches, beside the inbox's.
 */
function countsLine({ total, events, problems, totals }: InboxIssues): string {
  const inbox = `${countOf(totals.issues, 'issue')}, ${countOf(totals.events, 'event')}`;
  // A search that could not run lists nothing: the line says the figures are the inbox's.
  if (problems.length > 0)
    return `Nothing searched; the inbox holds ${inbox} (${totals.storedEvents} stored).`;
  if (total === totals.issues && events === totals.events) {
    return `${inbox} (${totals.storedEvents} stored).`;
  }
  return `${countOf(total, 'issue')}, ${countOf(events, 'event')} match (of ${inbox}; ${totals.storedEvents} stored).`;
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
