/**
 * What the inbox lets its reader do beyond reading, and what it says when it cannot: clear the
 * inbox, sign out, the notice that the store is not usable, and an issue's status (its badges
 * and the resolve, ignore and reopen forms).
 */
import { Link } from '@tanstack/react-router';
import type { IssueStatus as Status } from '#app/server/inbox/store/inbox-database.server';
import { clearInbox, setIssueStatus, signOutOfInbox } from '#app/server/inbox.functions';
import { countOf } from './format';

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

/** What each status can become, and the button that does it. */
const ACTIONS: Record<Status, Array<[to: Status, label: string]>> = {
  unresolved: [
    ['resolved', 'Resolve'],
    ['ignored', 'Ignore'],
  ],
  resolved: [
    ['unresolved', 'Reopen'],
    ['ignored', 'Ignore'],
  ],
  ignored: [
    ['unresolved', 'Reopen'],
    ['resolved', 'Resolve'],
  ],
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
 * Resolve, ignore, reopen: one plain form POST each (they work before hydration and without
 * JavaScript), under the clear form's cross-site rules; the server answers with a 303 back to
 * this page (and this event).
 */
export function IssueWorkflow({
  issueId,
  status,
  regressed,
  eventId,
}: {
  issueId: number;
  status: Status;
  regressed: boolean;
  eventId?: string;
}) {
  return (
    <div className="issue-workflow">
      <span>
        Status: <StatusBadges status={status} regressed={regressed} />
      </span>
      {ACTIONS[status].map(([to, label]) => (
        <form key={to} method="post" action={setIssueStatus.url} aria-label={`${label} this issue`}>
          <input type="hidden" name="issueId" value={String(issueId)} />
          <input type="hidden" name="status" value={to} />
          {eventId ? <input type="hidden" name="event" value={eventId} /> : null}
          <button type="submit">{label}</button>
        </form>
      ))}
    </div>
  );
}
