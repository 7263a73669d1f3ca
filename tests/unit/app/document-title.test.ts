import { describe, expect, it } from 'vitest';
import { NOT_FOUND_TITLE, pageTitle, SITE_TITLE, type TitleMatch } from '#app/document-title';

const ok: TitleMatch = { status: 'success' };

describe('pageTitle', () => {
  it.each<[string, TitleMatch[], TitleMatch, string]>([
    ['a page that rendered', [ok, ok], ok, SITE_TITLE],
    [
      'an unknown path (the root is marked)',
      [{ status: 'success', globalNotFound: true }],
      ok,
      NOT_FOUND_TITLE,
    ],
    [
      'a loader that threw notFound() (only its match knows yet)',
      [ok, ok],
      { status: 'notFound' },
      NOT_FOUND_TITLE,
    ],
    ['a failed page (its own fallback says so)', [{ status: 'error' }], ok, SITE_TITLE],
    ['no other match', [], ok, SITE_TITLE],
  ])('%s', (_name, matches, match, title) => {
    expect(pageTitle({ matches, match })).toBe(title);
  });

  it('names the page, unless a route along the path was not found', () => {
    expect(pageTitle({ matches: [ok], match: ok }, 'About')).toBe(`About · ${SITE_TITLE}`);
    // `/about/deeper`: the router marks the root, the page's own head asks.
    const deeper = [{ status: 'success', globalNotFound: true }, ok];
    expect(pageTitle({ matches: deeper, match: ok }, 'About')).toBe(NOT_FOUND_TITLE);
  });
});
