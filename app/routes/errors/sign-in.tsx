import { createFileRoute, Link, redirect } from '@tanstack/react-router';
import * as v from 'valibot';
import { getInboxAccess, signInToInbox } from '#app/server/inbox-access.functions';
import { inboxPagesOnly } from './-inbox-only';

const SignInSearch = v.object({
  failed: v.fallback(v.optional(v.literal(1)), undefined),
});

export const Route = createFileRoute('/errors/sign-in')({
  validateSearch: SignInSearch,
  async loader(match) {
    inboxPagesOnly(match);
    const access = await getInboxAccess();
    if (access === 'allowed') throw redirect({ to: '/errors' });
    return { access };
  },
  head: () => ({ meta: [{ title: 'Error inbox · Start Monitoring' }] }),
  component: InboxSignIn,
});

function InboxSignIn() {
  const { access } = Route.useLoaderData();
  const { failed } = Route.useSearch();
  if (access === 'local-only') {
    return (
      <main className="page">
        <h1>Error inbox</h1>
        <p role="alert">
          In production the error inbox answers only on the server itself: it holds the full text of
          every server failure. Open it from that machine (http://localhost/errors), or set{' '}
          <code>MONITORING_INBOX_TOKEN</code> to let visitors sign in.
        </p>
        <p>
          <Link to="/">Go to the home page</Link>
        </p>
      </main>
    );
  }
  return (
    <main className="page">
      <h1>Error inbox</h1>
      <p>The inbox holds the full text of every failure. Sign in with the inbox token.</p>
      {failed ? <p role="alert">That is not the inbox token.</p> : null}
      <form method="post" action={signInToInbox.url} aria-label="Sign in to the error inbox">
        <label>
          Inbox token{' '}
          <input type="password" name="token" autoComplete="current-password" required />
        </label>{' '}
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}
