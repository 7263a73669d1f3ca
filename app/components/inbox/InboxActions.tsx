/**
 * What the inbox lets its reader do beyond reading, and what it says when it cannot: clear the
 * inbox, sign out, the notice that the store is not usable, and triage (an issue's status badges,
 * its resolve, ignore, reopen and delete forms, and the list's bulk form).
 */
import { Link } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { clearInbox, signOutOfInbox, triageIssues } from '#app/server/inbox/inbox.functions';
import type { IssueListFilters } from '#app/server/inbox/inbox-inputs';
import type { IssueStatus as Status } from '#app/server/inbox/store/inbox-reads.server';
import type { TriageActionName, TriageState } from '#app/server/inbox/triage';
import { countOf, triageNoteOf } from './format';

/**
 * Clearing takes two steps: a link that asks, then a form that POSTs the confirmation.
 * A plain form, so it works before hydration and without JavaScript.
 */
export function ClearInbox({
  issueCount,
  confirming,
}: {
  issueCount: number;
  confirming: boolean;
}) {
  if (issueCount === 0) return null;
  if (!confirming) {
    return (
      <p>
        <Link to="/errors" search={{ confirm: 'clear' }}>
          Clear the inbox…
        </Link>
      </p>
    );
  }
  return (
    <form
      method="post"
      action={clearInbox.url}
      className="inbox-confirm"
      aria-label="Clear the inbox"
    >
      <p>
        {`Delete all ${countOf(issueCount, 'issue')}, their events and the release health counts? This cannot be undone.`}
      </p>
      <input type="hidden" name="confirm" value="clear" />
      <button type="submit">Yes, clear the inbox</button> <Link to="/errors">Cancel</Link>
    </form>
  );
}

/**
 * Ends this browser's inbox session. A plain form POST, like the clear form (works before
 * hydration, and under the same cross-site rules).
 */
export function SignOut() {
  return (
    <form
      method="post"
      action={signOutOfInbox.url}
      className="inbox-sign-out"
      aria-label="Sign out of the error inbox"
    >
      <button type="submit">Sign out</button>
    </form>
  );
}

/**
 * A store that cannot be used says so, and why: it never looks like an empty inbox (where "No
 * errors captured yet" would be a lie: reports are being lost).
 */
export function StorageProblem({ problem, inboxDir }: { problem: string; inboxDir: string }) {
  return (
    <div role="alert" className="inbox-problem">
      <h2>The inbox’s storage is failing</h2>
      <p>
        Error reports cannot be stored or shown: <span className="problem-reason">{problem}</span>
      </p>
      <p>
        Fix that for <code>{inboxDir}</code> (<code>MONITORING_INBOX_DIR</code>), then restart the
        server. <code>/health</code> reports <code>degraded</code> until then.
      </p>
    </div>
  );
}

const LABELS: Record<Status, string> = {
  unresolved: 'Unresolved',
  resolved: 'Resolved',
  ignored: 'Ignored',
};

/**
 * The buttons each status offers besides ignore and delete (which every status offers). "Fixed
 * in next release", not "Resolve in …": one button whose name holds "Resolve" is what a reader
 * (and a test, by role and name) looks for.
 */
const ACTIONS: Record<Status, Array<[action: TriageActionName, label: string]>> = {
  unresolved: [
    ['resolve', 'Resolve'],
    ['resolve-next-release', 'Fixed in next release'],
  ],
  resolved: [['unresolve', 'Reopen']],
  ignored: [
    ['unresolve', 'Reopen'],
    ['resolve', 'Resolve'],
  ],
};

/** The ignore choices, as Sentry's ignore menu offers them: forever, for a time, until a volume. */
const IGNORE_CHOICES: Array<[action: TriageActionName, label: string]> = [
  ['ignore', 'Forever'],
  ['ignore-30m', 'For 30 minutes'],
  ['ignore-1h', 'For 1 hour'],
  ['ignore-24h', 'For 24 hours'],
  ['ignore-1w', 'For 1 week'],
  ['ignore-10-events', 'Until 10 more events'],
  ['ignore-100-events', 'Until 100 more events'],
  ['ignore-1000-events', 'Until 1000 more events'],
  ['ignore-10-users', 'Until 10 more users'],
  ['ignore-100-users', 'Until 100 more users'],
];

/** What the list's notice says was done, after "3 issues". */
export const TRIAGE_DONE: Record<TriageActionName, string> = {
  resolve: 'resolved',
  'resolve-next-release': 'resolved in the next release',
  unresolve: 'reopened',
  ignore: 'ignored',
  'ignore-30m': 'ignored for 30 minutes',
  'ignore-1h': 'ignored for 1 hour',
  'ignore-24h': 'ignored for 24 hours',
  'ignore-1w': 'ignored for 1 week',
  'ignore-10-events': 'ignored until 10 more events',
  'ignore-100-events': 'ignored until 100 more events',
  'ignore-1000-events': 'ignored until 1000 more events',
  'ignore-10-users': 'ignored until 10 more users',
  'ignore-100-users': 'ignored until 100 more users',
  delete: 'deleted',
};

/**
 * The issue's state as badges: "Regressed" (seen again after it was resolved) stands out; the
 * list shows only what is not the usual "Unresolved" (`quiet`).
 */
export function StatusBadges({
  status,
  regressed,
  quiet = false,
}: {
  status: Status;
  regressed: boolean;
  quiet?: boolean;
}) {
  return (
    <>
      {/* A space between the two: their text reads "Regressed Unresolved", not one word. */}
      {regressed ? (
        <>
          <span className="badge-status regressed">Regressed</span>{' '}
        </>
      ) : null}
      {quiet && status === 'unresolved' ? null : (
        <span className={`badge-status status-${status}`}>{LABELS[status]}</span>
      )}
    </>
  );
}

/**
 * Resolve, resolve in the next release, ignore (forever, for a time, until a volume), reopen and
 * delete: one plain form POST each (they work before hydration and without JavaScript), under
 * the clear form's cross-site rules; the server answers with a 303 back to this page (and this
 * event), or to the list after a delete.
 */
export function IssueWorkflow({
  issue,
  eventId,
}: {
  issue: {
    id: number;
    status: Status;
    triage: TriageState;
    regressed: boolean;
    count: number;
    users: number;
  };
  eventId?: string;
}) {
  const note = triageNoteOf(issue);
  const fields = (
    <>
      <input type="hidden" name="issueId" value={String(issue.id)} />
      <input type="hidden" name="from" value="issue" />
      {eventId ? <input type="hidden" name="event" value={eventId} /> : null}
    </>
  );
  return (
    <div className="issue-workflow">
      <span>
        Status: <StatusBadges status={issue.status} regressed={issue.regressed} />
      </span>
      {note ? <span data-testid="triage-note">{note}</span> : null}
      {ACTIONS[issue.status].map(([action, label]) => (
        <form
          key={action}
          method="post"
          action={triageIssues.url}
          aria-label={`${label} this issue`}
        >
          {fields}
          <input type="hidden" name="action" value={action} />
          <button type="submit">{label}</button>
        </form>
      ))}
      <form method="post" action={triageIssues.url} aria-label="Ignore this issue">
        {fields}
        <label>
          Ignore{' '}
          <select name="action" defaultValue="ignore">
            {IGNORE_CHOICES.map(([action, label]) => (
              <option key={action} value={action}>
                {label}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="submit">Ignore</button>
      </form>
      <form method="post" action={triageIssues.url} aria-label="Delete this issue">
        {fields}
        <input type="hidden" name="action" value="delete" />
        <label>
          <input type="checkbox" name="confirm" value="delete" required /> Delete it and its events
          for good
        </label>{' '}
        <button type="submit">Delete</button>
      </form>
    </div>
  );
}

/** The form the list's checkboxes belong to (their `form` attribute names it). */
export const BULK_FORM_ID = 'bulk-triage';

/**
 * The list's bulk actions: one action (resolve, ignore with its mute choices, reopen, delete) for
 * the issues ticked on this page, or for all that the search matches (the server runs the search
 * again; it takes no id beyond the page). A plain form (the rows' checkboxes join it by its id),
 * so it works before hydration and without JavaScript; "select all on this page" needs
 * JavaScript, so it shows only once the page is hydrated.
 */
export function BulkTriage({ total, filters }: { total: number; filters: IssueListFilters }) {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const selectAll = (checked: boolean) => {
    for (const box of document.querySelectorAll<HTMLInputElement>(
      `input[name="issueId"][form="${BULK_FORM_ID}"]`,
    )) {
      box.checked = checked;
    }
  };
  const kept: Array<[string, string | undefined]> = [
    ['q', filters.search],
    ['status', filters.status],
    ['environment', filters.environment],
    ['release', filters.release],
    ['sort', filters.sort],
  ];
  return (
    <form
      id={BULK_FORM_ID}
      method="post"
      action={triageIssues.url}
      className="bulk-triage"
      aria-label="Act on issues"
    >
      {kept.map(([name, value]) =>
        value === undefined ? null : <input key={name} type="hidden" name={name} value={value} />,
      )}
      {hydrated ? (
        <label>
          <input type="checkbox" onChange={(event) => selectAll(event.target.checked)} /> Select all
          on this page
        </label>
      ) : null}
      <fieldset>
        <legend>Apply to</legend>
        <label>
          <input type="radio" name="scope" value="selected" defaultChecked /> The issues ticked
        </label>{' '}
        <label>
          <input type="radio" name="scope" value="matching" />{' '}
          {/* No "search" in it: the search box is the one field labelled so. */}
          {`All ${countOf(total, 'issue')} that match, on every page`}
        </label>
      </fieldset>
      <label>
        Action{' '}
        <select name="action" defaultValue="resolve">
          <option value="resolve">Resolve</option>
          <option value="resolve-next-release">Resolve in next release</option>
          <option value="unresolve">Reopen</option>
          <optgroup label="Ignore">
            {IGNORE_CHOICES.map(([action, label]) => (
              <option key={action} value={action}>
                {`Ignore: ${label.toLowerCase()}`}
              </option>
            ))}
          </optgroup>
          <option value="delete">Delete</option>
        </select>
      </label>{' '}
      <label>
        <input type="checkbox" name="confirm" value="delete" /> Confirm a delete (it cannot be
        undone)
      </label>{' '}
      {/* Not "Apply": the filters' button is. */}
      <button type="submit">Change issues</button>
    </form>
  );
}
