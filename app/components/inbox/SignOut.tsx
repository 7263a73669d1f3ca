import { signOutOfInbox } from '#app/server/inbox-access.functions';

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
