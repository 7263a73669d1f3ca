import { describe, expect, it } from 'vitest';
import { computeDigest } from '#app/server/failures/record-failure.server';
import { type IssueSearch, parseIssueSearch } from '#app/server/inbox/issue-search';

const ok = (...terms: IssueSearch['terms']): IssueSearch => ({ terms, problems: [] });
const tag = (key: string, values: string[], negated = false) =>
  ({ kind: 'tag', key, values, negated }) as const;

describe('parseIssueSearch', () => {
  it.each<[string, IssueSearch]>([
    ['', ok()],
    ['   ', ok()],
    // Free text: the words between terms make one phrase, as Sentry's grammar reads them.
    ['x is undefined', ok({ kind: 'text', text: 'x is undefined' })],
    ['  x   is ', ok({ kind: 'text', text: 'x is' })],
    ['"a  b" c', ok({ kind: 'text', text: 'a  b' }, { kind: 'text', text: 'c' })],
    ['!foo', ok({ kind: 'text', text: '!foo' })],
    ['""', ok()],
    // A URL pasted as text is text, not a term of the key "https".
    ['https://example.com/checkout', ok({ kind: 'text', text: 'https://example.com/checkout' })],
    // A bare digest (ten hex digits, as the error page shows it), alone or among words.
    ['1a2b3c4d5e', ok({ kind: 'digest-or-text', digest: '1a2b3c4d5e' })],
    ['1A2B3C4D5E', ok({ kind: 'digest-or-text', digest: '1a2b3c4d5e' })],
    [
      'failed 1a2b3c4d5e here',
      ok(
        { kind: 'text', text: 'failed' },
        { kind: 'digest-or-text', digest: '1a2b3c4d5e' },
        { kind: 'text', text: 'here' },
      ),
    ],
    ['1a2b3c4d5', ok({ kind: 'text', text: '1a2b3c4d5' })], // nine digits: text
    ['1a2b3c4d5ef', ok({ kind: 'text', text: '1a2b3c4d5ef' })], // eleven
    [
      'digest:1A2B3C4D5E',
      ok({ kind: 'field', field: 'digest', values: ['1a2b3c4d5e'], negated: false }),
    ],
    // Status.
    ['is:unresolved', ok({ kind: 'status', statuses: ['unresolved'], negated: false })],
    ['is:regressed', ok({ kind: 'status', statuses: ['regressed'], negated: false })],
    ['is:archived', ok({ kind: 'status', statuses: ['ignored'], negated: false })],
    ['!is:resolved', ok({ kind: 'status', statuses: ['resolved'], negated: true })],
    [
      'is:[resolved, ignored]',
      ok({ kind: 'status', statuses: ['resolved', 'ignored'], negated: false }),
    ],
    // Fields, tags, negation, quotes and lists.
    [
      'release:app@1.4.0 environment:production level:error',
      ok(
        { kind: 'field', field: 'release', values: ['app@1.4.0'], negated: false },
        { kind: 'field', field: 'environment', values: ['production'], negated: false },
        { kind: 'field', field: 'level', values: ['error'], negated: false },
      ),
    ],
    ['user:id:42', ok({ kind: 'field', field: 'user', values: ['id:42'], negated: false })],
    ['browser:"Chrome 156"', ok(tag('browser', ['Chrome 156']))],
    ['!browser:"Chrome 156"', ok(tag('browser', ['Chrome 156'], true))],
    ['url:"/a \\"b\\" \\\\c"', ok(tag('url', ['/a "b" \\c']))],
    ['os:[Linux, "Mac OS X"]', ok(tag('os', ['Linux', 'Mac OS X']))],
    ['tags[release]:x', ok(tag('release', ['x']))],
    ['route:/checkout', ok(tag('route', ['/checkout']))],
    ['environment:""', ok({ kind: 'field', field: 'environment', values: [''], negated: false })],
    ['browser:"open quote', ok(tag('browser', ['open quote']))],
    [
      'TypeError is:unresolved checkout page',
      ok(
        { kind: 'text', text: 'TypeError' },
        { kind: 'status', statuses: ['unresolved'], negated: false },
        { kind: 'text', text: 'checkout page' },
      ),
    ],
    // What cannot be searched is said.
    [
      'is:whatever',
      {
        terms: [],
        problems: ['unknown value for is: whatever (unresolved, resolved, ignored, regressed)'],
      },
    ],
    [
      'level:eror x',
      {
        terms: [{ kind: 'text', text: 'x' }],
        problems: ['unknown level eror (fatal, error, warning, info, debug)'],
      },
    ],
    ['release:', { terms: [], problems: ['release: needs a value'] }],
    ['release: x', { terms: [{ kind: 'text', text: 'x' }], problems: ['release: needs a value'] }],
    ['os:[]', { terms: [], problems: ['os: needs a value'] }],
  ])('%j', (query, expected) => {
    expect(parseIssueSearch(query)).toEqual(expected);
  });

  it('reads the digest the app makes as a digest', () => {
    const digest = computeDigest(new Error('boom'));
    expect(parseIssueSearch(digest).terms).toEqual([{ kind: 'digest-or-text', digest }]);
  });
});
