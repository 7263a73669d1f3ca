import { Link } from '@tanstack/react-router';
import { clearInbox } from '#app/server/inbox.functions';
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
