import { describe, expect, it, vi } from 'vitest';
import { takeTokenFromFragment, tokenInFragment } from '#app/routes/errors/sign-in';

// The fragment's rules only: not the inbox's server functions, which reach its store.
vi.mock('#app/server/inbox/inbox.functions', () => ({
  getInboxAccess: () => {},
  signInToInbox: {},
}));

describe('tokenInFragment', () => {
  it.each([
    ['#token=abc_DEF-123', 'abc_DEF-123'],
    ['token=abc', 'abc'],
    ['#token=', undefined],
    ['#other=1', undefined],
    ['', undefined],
    ['#a=1&token=xyz', 'xyz'],
  ])('%j: %j', (hash, token) => {
    expect(tokenInFragment(hash)).toBe(token);
  });
});

describe('takeTokenFromFragment', () => {
  /** The page's location and history, as far as the function uses them. */
  function page(path: string, search: string, hash: string) {
    const replaced: Array<[unknown, string]> = [];
    const location = { pathname: path, search, hash } as Location;
    const history = {
      state: { key: 'router-state' },
      replaceState: (state: unknown, _unused: string, url: string) => replaced.push([state, url]),
    } as unknown as History;
    return { location, history, replaced };
  }

  it('returns the token and removes the fragment, keeping the entry’s state', () => {
    const { location, history, replaced } = page('/errors/sign-in', '?failed=1', '#token=t0k');
    expect(takeTokenFromFragment(location, history)).toBe('t0k');
    expect(replaced).toEqual([[{ key: 'router-state' }, '/errors/sign-in?failed=1']]);
  });

  it('removes any fragment, and leaves a page without one alone', () => {
    const other = page('/errors/sign-in', '', '#x');
    expect(takeTokenFromFragment(other.location, other.history)).toBeUndefined();
    expect(other.replaced).toHaveLength(1);
    const none = page('/errors/sign-in', '', '');
    expect(takeTokenFromFragment(none.location, none.history)).toBeUndefined();
    expect(none.replaced).toHaveLength(0);
  });
});
