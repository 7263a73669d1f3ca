/**
 * The /errors list page's parts, in the page's order: release health, then the list of issues
 * (its filters, each row with its counts and sparkline, the environment badge).
 */
import { Link } from '@tanstack/react-router';
import type { ListedIssue } from '#app/server/inbox/inbox.functions';
import type { IssueListFilters } from '#app/server/inbox/inbox-inputs';
import type { ReleaseHealth as Health } from '#app/server/inbox/store/inbox-reads.server';
import { Sparkline } from './Charts';
import { countOf, formatUtc, isoOf, triageNoteOf, usersOf } from './format';
import { BULK_FORM_ID, StatusBadges } from './InboxActions';

/**
 * The issues, one row each: what, where, how often, whom and when, and its last 24 hours;
 * `selectable`, each with a checkbox of the bulk form (InboxActions.tsx `BulkTriage`).
 */
export function IssueList({
  issues,
  selectable = false,
}: {
  issues: ListedIssue[];
  selectable?: boolean;
}) {
  return (
    <ol className="issue-list" aria-label="Issues">
      {issues.map((issue) => (
        <IssueRow key={issue.id} issue={issue} selectable={selectable} />
      ))}
    </ol>
  );
}

export function IssueRow({ issue, selectable }: { issue: ListedIssue; selectable: boolean }) {
  const where = issue.topFrame ?? issue.culprit;
  const note = triageNoteOf(issue);
  return (
    <li className={issue.regressed ? 'issue-row regressed' : 'issue-row'} data-testid="issue">
      {selectable ? (
        <input
          type="checkbox"
          className="issue-select"
          name="issueId"
          value={String(issue.id)}
          form={BULK_FORM_ID}
          aria-label={`Select ${issue.title || '(no title)'}`}
        />
      ) : null}
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
          {note ? <span className="triage-note"> {note}</span> : null}
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
      <p className="issue-count">
        {countOf(issue.count, 'event')}
        <span className="issue-users">{usersOf(issue.users, issue.usersPastCap)}</span>
      </p>
    </li>
  );
}

const STATUS_OPTIONS: Array<[value: string, label: string]> = [
  ['', 'Unresolved and resolved'],
  ['unresolved', 'Unresolved'],
  ['resolved', 'Resolved'],
  ['ignored', 'Ignored'],
  ['all', 'All'],
];
const SORT_OPTIONS: Array<[value: string, label: string]> = [
  ['last-seen', 'Last seen'],
  ['first-seen', 'First seen'],
  ['count', 'Events'],
];

/**
 * The list's filters as a plain GET form: it works before hydration and without JavaScript,
 * and its URL is the list's (a link to a filtered list is just the address).
 */
export function IssueFilters({
  filters,
  environments,
  releases,
}: {
  filters: IssueListFilters;
  environments: string[];
  releases: string[];
}) {
  const filtered =
    filters.search !== undefined ||
    filters.status !== undefined ||
    filters.environment !== undefined ||
    filters.release !== undefined ||
    filters.sort !== undefined;
  return (
    <form method="get" action="/errors" className="issue-filters" aria-label="Filter issues">
      <label className="filter-search">
        Search{' '}
        <input
          type="search"
          name="q"
          defaultValue={filters.search ?? ''}
          maxLength={200}
          placeholder='Text, a digest, is:unresolved, release:…, browser:"Chrome 156"'
          aria-describedby="search-syntax"
        />
      </label>
      <label>
        Status{' '}
        <select name="status" defaultValue={filters.status ?? ''}>
          {optionsOf(STATUS_OPTIONS)}
        </select>
      </label>
      <label>
        Environment{' '}
        <select name="environment" defaultValue={filters.environment ?? ''}>
          {optionsOf(choices(environments, filters.environment))}
        </select>
      </label>
      <label>
        Release{' '}
        <select name="release" defaultValue={filters.release ?? ''}>
          {optionsOf(choices(releases, filters.release))}
        </select>
      </label>
      <label>
        Sort by{' '}
        <select name="sort" defaultValue={filters.sort ?? 'last-seen'}>
          {optionsOf(SORT_OPTIONS)}
        </select>
      </label>
      <span className="filter-actions">
        <button type="submit">Apply</button>
        {filtered ? <a href="/errors">Reset</a> : null}
      </span>
      <p id="search-syntax" className="muted filter-help">
        Sentry&rsquo;s search: free text (title, culprit, message, page), a digest,{' '}
        <code>is:unresolved|resolved|ignored|regressed</code>, <code>release:</code>,{' '}
        <code>environment:</code>, <code>level:</code>, <code>user:</code>, any tag as{' '}
        <code>key:value</code>, <code>!key:value</code> for not, <code>key:"a b"</code>.
      </p>
    </form>
  );
}

function optionsOf(options: Array<[value: string, label: string]>) {
  return options.map(([option, label]) => (
    <option key={option} value={option}>
      {label}
    </option>
  ));
}

/** "All", then each value seen; the value asked for is offered even when none is seen. */
function choices(values: string[], current: string | undefined) {
  const all = current !== undefined && !values.includes(current) ? [...values, current] : values;
  return [['', 'All'] as [string, string], ...all.map((value): [string, string] => [value, value])];
}

/**
 * An environment's name, styled by kind so that production and development are told apart at a
 * glance: production solid, development dashed, any other outlined.
 */
export function EnvironmentBadge({ environment }: { environment: string }) {
  const kind =
    environment === 'production'
      ? 'production'
      : environment === 'development'
        ? 'development'
        : 'other';
  return (
    <span className={`env env-${kind}`}>{environment === '' ? 'no environment' : environment}</span>
  );
}

/**
 * Release health from the session updates the SDK sends: per release and environment, the
 * sessions and their parts (healthy, errored, unhandled, crashed and abnormal, which add up to
 * them) and the crash-free rate, as Sentry shows them (`releaseHealthOf` in app/server/inbox/store/inbox-reads.server.ts).
 */
export function ReleaseHealth({ health }: { health: Health[] }) {
  if (health.length === 0) return <p>No sessions received yet.</p>;
  return (
    <div className="table-scroll">
      <table className="inbox-table release-health">
        <thead>
          <tr>
            <th scope="col">Release</th>
            <th scope="col">Environment</th>
            <th scope="col">Sessions</th>
            <th scope="col">Healthy</th>
            <th scope="col">Errored</th>
            <th scope="col">Unhandled</th>
            <th scope="col">Crashed</th>
            <th scope="col">Crash-free</th>
          </tr>
        </thead>
        <tbody>
          {health.map((row) => (
            <tr key={`${row.release}\n${row.environment}`}>
              <td>{row.release || 'not set'}</td>
              <td>
                <EnvironmentBadge environment={row.environment} />
              </td>
              <td>{row.sessions}</td>
              <td>{row.healthy}</td>
              <td>{row.errored}</td>
              <td>{row.unhandled}</td>
              <td>
                {row.abnormal > 0 ? `${row.crashed} + ${row.abnormal} abnormal` : row.crashed}
              </td>
              <td>{crashFree(row.crashFreeRate)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        Errored sessions saw only handled errors. Unhandled: an error nobody caught, which a browser
        survives; crash-free counts crashed sessions only, as Sentry does.
      </p>
    </div>
  );
}

/** "99.5%", never rounded up to a perfect 100% that it is not; "no sessions" without any. */
export function crashFree(rate: number | undefined): string {
  if (rate === undefined) return 'no sessions';
  return `${Math.floor(rate * 10_000) / 100}%`;
}

/**
 * "Also received: 15 session updates, 2 span items, 1 client report." — what is counted, not
 * listed. Items, as they came: one session sends several updates (the table above counts the
 * sessions), and one span item of the SDK's carries a batch of spans.
 */
export function receivedLine(itemCounts: Record<string, number>): string | undefined {
  const others = Object.entries(itemCounts)
    .filter(([type, count]) => type !== 'event' && count > 0)
    .map(([type, count]) => countOf(count, itemName(type)));
  return others.length > 0 ? `Also received: ${others.join(', ')}.` : undefined;
}

const ITEM_NAMES = new Map([
  ['session', 'session update'],
  ['span', 'span item'],
  ['sessions', 'session aggregate'],
  ['client_report', 'client report'],
  ['other', 'other item'],
]);

function itemName(type: string): string {
  return ITEM_NAMES.get(type) ?? type.replaceAll('_', ' ');
}
