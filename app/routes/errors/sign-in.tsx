/**
 * The inbox's sign-in page. The one-click sign-in link the server prints
 * (`/errors/sign-in#token=…`) carries the token in the fragment: browsers never send it, so it
 * reaches no server or proxy log. This page takes it from there and removes it from the address
 * bar and the history entry before posting it (decision 0306).
 */
import { createFileRoute, Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useRef } from 'react';
import * as v from 'valibot';
import { getInboxAccess, signInToInbox } from '#app/server/inbox/inbox.functions';
import { inboxPagesOnly, pageTitle } from '#app/site-config';

const SignInSearch = v.object({
  failed: v.fallback(v.optional(v.literal('1')), undefined),
});

export const Route = createFileRoute('/errors/sign-in')({
  validateSearch: SignInSearch,
  // No redirect from the server when the inbox is already open to this request: a redirect
  // would carry the link's #token=… fragment on to /errors, into the address bar and history.
  async loader(match) {
    inboxPagesOnly(match);
    return { access: await getInboxAccess() };
  },
  head: (context) => ({ meta: [{ title: pageTitle(context, 'Error inbox') }] }),
  component: InboxSignIn,
});

function InboxSignIn() {
  const { access } = Route.useLoaderData();
  const { failed } = Route.useSearch();
  const navigate = useNavigate();
  const form = useRef<HTMLFormElement>(null);
  const mayRead = access !== 'sign-in';

  // The server's one-click link: the token leaves the address bar first, then is posted with
  // the form, as if typed (`takeTokenFromFragment` below).
  useEffect(() => {
    const token = takeTokenFromFragment(window.location, window.history);
    if (mayRead) {
      void navigate({ to: '/errors', replace: true });
      return;
    }
    const input = form.current?.elements.namedItem('token');
    if (token === undefined || !(input instanceof HTMLInputElement)) return;
    input.value = token;
    form.current?.requestSubmit();
  }, [mayRead, navigate]);

  if (mayRead) {
    return (
      <main className="page">
        <h1>Error inbox</h1>
        <p>
          You can read the inbox: <Link to="/errors">open it</Link>.
        </p>
      </main>
    );
  }
  return (
    <main className="page">
      <h1>Error inbox</h1>
      <p>
        The inbox holds the full text of every failure. Sign in with the inbox token: the value of{' '}
        <code>MONITORING_INBOX_TOKEN</code>, or the token in the sign-in link the server printed
        when it started.
      </p>
      {failed ? <p role="alert">That is not the inbox token.</p> : null}
      <form
        ref={form}
        method="post"
        action={signInToInbox.url}
        aria-label="Sign in to the error inbox"
      >
        <label>
          Inbox token{' '}
          <input type="password" name="token" autoComplete="current-password" required />
        </label>{' '}
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}

/** The token in a `#token=…` fragment, if any. Pure. */
export function tokenInFragment(hash: string): string | undefined {
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token');
  return token ? token : undefined;
}

/** Reads the token from the page's fragment and removes the fragment from the current entry. */
export function takeTokenFromFragment(location: Location, history: History): string | undefined {
  if (location.hash === '') return undefined;
  const token = tokenInFragment(location.hash);
  // The router's state stays with the entry; only the URL loses its fragment.
  history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  return token;
}
