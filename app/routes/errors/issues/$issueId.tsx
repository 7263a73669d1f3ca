import { createFileRoute, Link, notFound } from '@tanstack/react-router';
import { AlertHistory } from '#app/components/inbox/Alerts';
import { Histogram, TagBreakdown } from '#app/components/inbox/Charts';
import { countOf, formatUtc, isoOf, usersOf } from '#app/components/inbox/format';
import { IssueWorkflow, SignOut, StorageProblem } from '#app/components/inbox/InboxActions';
import { EventDetail, IssueEvents } from '#app/components/inbox/IssueEvents';
import { EnvironmentBadge } from '#app/components/inbox/IssueList';
import { getInboxIssue, type InboxIssue } from '#app/server/inbox/inbox.functions';
import { inboxPagesOnly, pageTitle } from '#app/site-config';
import { eventParamOf, issueEventOf, issueIdOf } from '../../../server/inbox/inbox-inputs';

/**
 * An issue: its latest event (or the one `?event=` names), its last 30 days, its tags and its
 * users, and its stored events newest first (from the one `?before=` names).
 */
export const Route = createFileRoute('/errors/issues/$issueId')({
  validateSearch: issueEventOf,
  loaderDeps: ({ search }) => ({ event: search.event, before: search.before }),
  // A method, not an arrow: a mapped stack names an arrow after its first parameter.
  loader(match) {
    inboxPagesOnly(match);
    // An id no issue or event can have is the URL's fault: the not-found page.
    const issueId = issueIdOf(match.params.issueId);
    const eventId = eventParamOf(match.deps.event);
    const before = eventParamOf(match.deps.before);
    if (issueId === undefined || eventId === undefined || before === undefined) throw notFound();
    return getInboxIssue({
      data: {
        issueId,
        ...(eventId === null ? {} : { eventId }),
        ...(before === null ? {} : { before }),
      },
    });
  },
  head: (context) => ({ meta: [{ title: pageTitle(context, 'Issue · Error inbox') }] }),
  component: IssuePage,
});

function IssuePage() {
  const page = Route.useLoaderData();
  return (
    <main className="page inbox-page">
      <div className="inbox-top">
        <p>
          <Link to="/errors">← All issues</Link>
        </p>
        {page.signedIn ? <SignOut /> : null}
      </div>
      {page.kind === 'failing' ? (
        <>
          <h1>Issue</h1>
          <StorageProblem problem={page.problem} inboxDir={page.inboxDir} />
        </>
      ) : (
        <Issue page={page} />
      )}
    </main>
  );
}

function Issue({ page }: { page: InboxIssue }) {
  const { issue, event, today, events, now, eventsBefore } = page;
  // Back to the event on view after a status change, unless it is simply the latest.
  const shownEventId = event && !('unshown' in event) && !event.latest ? event.eventId : undefined;
  return (
    <>
      <h1 className="issue-headline">{issue.title || '(no title)'}</h1>
      {issue.culprit ? (
        <p className="issue-culprit">
          <code>{issue.culprit}</code>
        </p>
      ) : null}
      <IssueWorkflow issue={issue} eventId={shownEventId} />
      <div className="issue-layout">
        <aside className="issue-side" aria-label="About this issue">
          <dl className="facts issue-facts">
            <dt>Events</dt>
            <dd>{`${issue.count} (${issue.storedEvents} stored)`}</dd>
            <dt>Users</dt>
            <dd>{usersOf(issue.users, issue.usersPastCap)}</dd>
            <dt>First seen</dt>
            <dd>
              <time dateTime={isoOf(issue.firstSeen)}>{formatUtc(issue.firstSeen)}</time>
            </dd>
            <dt>Last seen</dt>
            <dd>
              <time dateTime={isoOf(issue.lastSeen)}>{formatUtc(issue.lastSeen)}</time>
            </dd>
            <dt>First release</dt>
            <dd>{issue.firstRelease || 'not set'}</dd>
            <dt>Latest release</dt>
            <dd>{issue.lastRelease || 'not set'}</dd>
            <dt>{issue.environments.length > 1 ? 'Environments' : 'Environment'}</dt>
            <dd className="env-list">
              {issue.environments.map((environment) => (
                <EnvironmentBadge key={environment} environment={environment} />
              ))}
            </dd>
            <dt>Level</dt>
            <dd className={`level level-${issue.level}`}>{issue.level}</dd>
          </dl>
          <section aria-labelledby="histogram-heading">
            <h2 id="histogram-heading">Last 30 days</h2>
            <Histogram daily={issue.daily} today={today} />
          </section>
          <section aria-labelledby="tags-heading">
            <h2 id="tags-heading">Tags</h2>
            <TagBreakdown tags={issue.tags} />
          </section>
          <AlertHistory alerts={page.alerts} />
        </aside>
        <div className="issue-events">
          {event ? (
            <EventDetail issueId={issue.id} event={event} />
          ) : (
            <p>
              {`None of this issue’s ${countOf(issue.count, 'event')} is stored any more: its counts are kept.`}
            </p>
          )}
          {events.events.length > 0 || eventsBefore !== undefined ? (
            <IssueEvents
              issueId={issue.id}
              page={events}
              now={now}
              {...(eventsBefore === undefined ? {} : { before: eventsBefore })}
              {...(event ? { shownEventId: event.eventId } : {})}
            />
          ) : null}
        </div>
      </div>
    </>
  );
}
