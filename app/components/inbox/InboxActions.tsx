/**
 * What the inbox lets its reader do beyond reading, and what it says when it cannot: clear the
 * inbox, sign out, and the notice that the store is not usable.
 */
import { Link } from '@tanstack/react-router';
import { clearInbox } from '#app/server/inbox.functions';
import { signOutOfInbox } from '#app/server/inbox-access.functions';
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
