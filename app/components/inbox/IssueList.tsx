import { Link } from '@tanstack/react-router';
import type { ListedIssue } from '#app/server/inbox.functions';
import { Sparkline } from './Charts';
import { EnvironmentBadge } from './EnvironmentBadge';
import { countOf, formatUtc, isoOf } from './format';
import { StatusBadges } from './IssueStatus';

/** The issues, one row each: what, where, how often and when, and its last 24 hours. */
export function IssueList({ issues }: { issues: ListedIssue[] }) {
  return (
    <ol className="issue-list" aria-label="Issues">
      {issues.map((issue) => (
        <IssueRow key={issue.id} issue={issue} />
      ))}
    </ol>
  );
}

export function IssueRow({ issue }: { issue: ListedIssue }) {
  const where = issue.topFrame ?? issue.culprit;
  return (
    <li className={issue.regressed ? 'issue-row regressed' : 'issue-row'} data-testid="issue">
      <div className="issue-main">
        <p className="issue-heading">
          <Link
            to="/errors/issues/$issueId"
            params={{ issueId: String(issue.id) }}
            className="issue-title"
          >
            {issue.title || '(no title)'}
          </Link>{' '}
          <StatusBadges status={issue.status} regressed={issue.regressed} quiet />
        </p>
        {where ? (
          <p className="issue-culprit">
            <code>{where}</code>
          </p>
        ) : null}
        <dl className="issue-meta">
          <dt>Last seen</dt>
          <dd>
            <time dateTime={isoOf(issue.lastSeen)}>{formatUtc(issue.lastSeen)}</time>
          </dd>
          <dt>First seen</dt>
          <dd>
            <time dateTime={isoOf(issue.firstSeen)}>{formatUtc(issue.firstSeen)}</time>
          </dd>
          <dt>{issue.environments.length > 1 ? 'Environments' : 'Environment'}</dt>
          <dd className="env-list">
            {issue.environments.map((environment) => (
              <EnvironmentBadge key={environment} environment={environment} />
            ))}
          </dd>
          <dt>Latest release</dt>
          <dd>{issue.lastRelease || 'not set'}</dd>
        </dl>
      </div>
      <div className="issue-graph">
        <Sparkline hourly={issue.hourly} />
      </div>
      <p className="issue-count">{countOf(issue.count, 'event')}</p>
    </li>
  );
}
