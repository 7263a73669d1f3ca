import { describe, expect, it } from 'vitest';
import { pageStatus } from '#app/start-1.120/render-page.server';

describe('pageStatus', () => {
  it.each([
    ['a page that loaded', { routerStatus: 200, redirected: false, failed: false }, 200],
    ['a failed load (Start says 200)', { routerStatus: 200, redirected: false, failed: true }, 500],
    ['not found', { routerStatus: 404, redirected: false, failed: false }, 404],
    ['a redirect', { routerStatus: 307, redirected: true, failed: false }, 307],
    ['a permanent redirect', { routerStatus: 301, redirected: true, failed: false }, 301],
    ['a redirect next to a failure', { routerStatus: 302, redirected: true, failed: true }, 302],
  ])('%s answers %i', (_name, outcome, status) => {
    expect(pageStatus(outcome)).toBe(status);
  });
});
