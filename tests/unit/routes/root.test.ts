import { describe, expect, it, vi } from 'vitest';
import { isInboxPath } from '#app/routes/__root';

// The navigation's rule only: not the server function the root's beforeLoad calls.
vi.mock('#app/server/example.functions', () => ({ failRootBeforeLoadOnRequest: () => {} }));

describe('isInboxPath: where the navigation marks the inbox link current', () => {
  it.each([
    ['/errors', true],
    ['/errors/', true],
    ['/errors/0123456789abcdef0123456789abcdef', true],
    ['/errors/sign-in', true],
    ['/errorsx', false],
    ['/about', false],
    ['/', false],
    ['/sentry-example-page/errors', false],
  ])('%s → %s', (pathname, expected) => {
    expect(isInboxPath(pathname)).toBe(expected);
  });
});
