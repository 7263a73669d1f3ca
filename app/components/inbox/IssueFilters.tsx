import type { IssueListFilters } from '#app/server/inbox/inbox-inputs';

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
          placeholder="Title, culprit or page URL"
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
