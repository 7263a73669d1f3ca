/**
 * The one-click sign-in link the server prints (`/errors/sign-in#token=…`) carries the token in
 * the fragment: browsers never send it, so it reaches no server or proxy log. The sign-in page
 * takes it from there and removes it from the address bar and the history entry before posting
 * it (decision 0306).
 */

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
