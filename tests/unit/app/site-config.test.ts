/**
 * The site config and the document's title.
 */
import { describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import {
  NOT_FOUND_TITLE,
  pageTitle,
  publicConfigOf,
  SITE_TITLE,
  type TitleMatch,
} from '#app/site-config';

const source = {
  dsn: 'https://abc@o123.ingest.us.sentry.io/456',
  environment: 'production',
  release: 'app@1.0.0',
  tracesSampleRate: 0.1,
};

describe('publicConfigOf', () => {
  it('hands the browser exactly the DSN, its tunnel URL, environment, release and rate', () => {
    expect(publicConfigOf(source)).toEqual({
      dsn: 'https://abc@o123.ingest.us.sentry.io/456',
      tunnel: '/monitoring?o=123&p=456&r=us',
      environment: 'production',
      release: 'app@1.0.0',
      tracesSampleRate: 0.1,
    });
  });

  it('gives the local inbox DSN its tunnel URL', () => {
    expect(publicConfigOf({ ...source, dsn: LOCAL_INBOX_DSN }).tunnel).toBe('/monitoring?o=0&p=1');
  });

  it('refuses a DSN that does not parse', () => {
    expect(() => publicConfigOf({ ...source, dsn: 'nope' })).toThrow(/DSN/);
  });
});

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
