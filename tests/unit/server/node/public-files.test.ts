import { describe, expect, it } from 'vitest';
import {
  cacheControlOf,
  IMMUTABLE,
  NOT_STORED,
  PAGE,
  REVALIDATED,
} from '#app/server/node/public-files.server';

describe('cacheControlOf', () => {
  it.each([
    // path, a public file nitro serves → Cache-Control
    ['/_build/assets/vendor-react-DDq-4j0n.js', true, IMMUTABLE],
    ['/_build/assets/app-CvilXjw8.css', true, IMMUTABLE],
    ['/assets/app-CvilXjw8.css', true, IMMUTABLE],
    ['/_build/assets/app%2DCvilXjw8.css', true, IMMUTABLE],
    // Stable names: kept, but asked for again (ETag makes that a 304).
    ['/favicon.svg', true, REVALIDATED],
    ['/_build/other.json', true, REVALIDATED],
    // A chunk that is not there (an older build's) gets the not-found page: never immutable.
    ['/_build/assets/gone-1a2b3c4d.js', false, PAGE],
    ['/', false, PAGE],
    ['/about', false, PAGE],
    ['/no-such-page', false, PAGE],
    ['/sentry-example-page/ssr-error', false, PAGE],
    ['/errorsx', false, PAGE],
    // The private inbox, and what server functions answer (the inbox's data among them).
    ['/errors', false, NOT_STORED],
    ['/errors/', false, NOT_STORED],
    ['/errors/0123abcd', false, NOT_STORED],
    ['/errors/sign-in', false, NOT_STORED],
    ['/Errors', false, NOT_STORED],
    ['/%65rrors', false, NOT_STORED],
    ['/_server/abc123', false, NOT_STORED],
  ])('%s (public file: %j) → %s', (path, publicFile, expected) => {
    expect(cacheControlOf(path, publicFile)).toBe(expected);
  });

  it('lets no shared cache keep a page', () => {
    expect(PAGE).toMatch(/\bprivate\b/);
    expect(NOT_STORED).toBe('no-store');
  });
});
