import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { groupEvent, type VariantName } from '#app/server/inbox/grouping/grouping';
import { normaliseEvent } from '#app/server/inbox/normalise-event';

/**
 * Sentry's own grouping inputs (tests/fixtures/grouping/, see its README), each with the hashes
 * Sentry's snapshot for it records: the same event must land in the same issue here and there.
 * `null` is a variant Sentry computes that does not contribute; a variant not listed must not
 * exist. The commit is the snapshot's in getsentry/sentry.
 */
const SENTRY_CASES: Array<{
  input: string;
  snapshot: string;
  variants: Partial<Record<VariantName, string | null>>;
}> = [
  {
    input: 'exception-compute-hashes',
    snapshot: '232e3beae9f9ba4b49017a8f8cd0ae3be65b6adf',
    // `exception` as one bare object, no `values`: Relay reads it as a list of one.
    variants: { app: 'b23ee1963904c2ca87b145febf94b66c' },
  },
  {
    input: 'exception-javascript-no-in-app',
    snapshot: '94ae48d4cad3bfb9a2ceebf013bc44acc11aa15e',
    // Source-mapped frames: context lines, not functions; no in-app frame, so no app hash.
    variants: { app: null, system: '26552f86ca2368e708afa1df6effc1c5' },
  },
  {
    input: 'javascript-xbrowser-chrome',
    snapshot: '166108a72f1f5e3431c4831a19e8de6743cdaaa3',
    // eval and <anonymous> frames ignored, functions trimmed to their last dot-segment.
    variants: { app: null, system: 'c63e8727af1a8fe75872b6a762797113' },
  },
  {
    input: 'javascript-polyfills',
    snapshot: '4b2a836d26f87498e87423a9ceaee431eee20d81',
    // No frame counts (Babel, core-js, tslib): type and value; the equal system hash drops.
    variants: { app: 'be36642f41f047346396f018f62375d3', system: null },
  },
  {
    input: 'javascript-exception-fallback-to-message',
    snapshot: '17a10dbef94364342d1f808a62411f7bc6d41d4b',
    // No stack: the value, parameterised, two lines.
    variants: { app: '10dfd81e2df31e96fae451b9e205ad81' },
  },
  {
    input: 'frame-uses-context-line-over-function',
    snapshot: '0e048f0b55af7e95ea1ec36cdc1647a0167cfab4 (grouphash_metadata)',
    variants: { app: null, system: '60e0a667027bef0d0b7c4882891df7e8' },
  },
  {
    input: 'frame-ignores-filename-if-http',
    snapshot: '166108a72f1f5e3431c4831a19e8de6743cdaaa3',
    variants: { app: null, system: '64a0e0a34d99dce03a8c5a4c237a4b5a' },
  },
  {
    input: 'node-exception-weird',
    snapshot: '2fc468f924855937cf0f7385b5b44b7d31025579',
    // node_modules frames out of the app; server-sent context lines count beside functions.
    variants: {
      app: 'a20509269752c9a1bea6078851e4d39c',
      system: '252dc79eb5653bf822e2684d90734cb8',
    },
  },
  {
    input: 'java-chained',
    snapshot: '1687bbc4403197a300b7cadb4e28c3e7734928e8',
    // Three chained exceptions; frameworks out of the app, io.sentry frames never count; the
    // log message loses to the exceptions.
    variants: { app: null, system: '1959b227a7cf6acf7f3fd401b5d9f09b', default: null },
  },
  {
    input: 'frame-ignores-sun-java-generated-methods',
    snapshot: '166108a72f1f5e3431c4831a19e8de6743cdaaa3',
    variants: { app: null, system: '9bc326575875422d0d4ced3c35d9f916' },
  },
  {
    input: 'exception-groups-two-types',
    snapshot: '176480bdcb542890442b02674390a2d8a120c308',
    variants: { app: 'bca604b98cb4637167eb6190a92e8933' },
  },
  {
    input: 'exception-groups-one-type-with-similar-values-and-children',
    snapshot: '6ebf2bf3e2b4eaf06ce86fd75c16d9fd22bf0fbc',
    variants: { app: 'f0078a82f351095ba595daa7d493aa3c' },
  },
  {
    input: 'javascript-message-parameterization',
    snapshot: '1ae3109767923eb8588826d145ed046d2f2fa250',
    variants: { default: 'f9e47f16e3b9770b440157179c47bf7a' },
  },
  {
    input: 'hybrid-fingerprint-base',
    snapshot: '1d85811865a1a214d3ee4a773959ac0483d4cac7',
    // ["{{ default }}", "dogs are great"]: the default grouping's values, then the salt.
    variants: { app: 'e3d593b4335190212ca7c18b8e967fb1' },
  },
  {
    input: 'built-in-fingerprint-chunkload-error',
    snapshot: '1d85811865a1a214d3ee4a773959ac0483d4cac7',
    variants: { app: null, system: null, built_in_fingerprint: '5d731dcf8ecc4f042eeacf528d8d8da9' },
  },
  {
    input: 'built-in-fingerprint-chunkload-error-hybrid-fingerprint',
    snapshot: '08a4adbbe86238eb5bd88c816f7e464624f55314',
    // Sentry's built-in rule replaces the client's own fingerprint.
    variants: { app: null, system: null, built_in_fingerprint: '5d731dcf8ecc4f042eeacf528d8d8da9' },
  },
];

/** The fixture as the inbox groups it: after Relay's normalisation (normalise-event.ts). */
function fixture(name: string): unknown {
  return normaliseEvent(JSON.parse(readFileSync(`tests/fixtures/grouping/${name}.json`, 'utf8')));
}

describe('Sentry’s grouping cases, hash for hash', () => {
  it.each(SENTRY_CASES)('$input', ({ input, variants }) => {
    const result = groupEvent(fixture(input));
    const hashes = Object.fromEntries(
      Object.entries(result.variants).map(([name, variant]) => [name, variant.hash]),
    );
    expect(hashes).toEqual(variants);
    // The event's hashes: the contributing ones, app first.
    const expected = (['app', 'default', 'built_in_fingerprint', 'system'] as const)
      .map((name) => variants[name])
      .filter((hash): hash is string => typeof hash === 'string');
    expect(result.hashes).toEqual(expected);
  });

  it('custom-fingerprint: a fingerprint without {{ default }} is hashed alone', () => {
    // The fingerprint of Sentry's custom-fingerprint fixture (snapshot
    // 0c003a0f0245ac46f9b0502e039df82821f2e0ce), on a shorter event of the same kind.
    const result = groupEvent({
      platform: 'python',
      fingerprint: ['celery', 'SoftTimeLimitExceeded', 'sentry.tasks.store.process_event'],
      exception: { values: [{ type: 'SoftTimeLimitExceeded', value: 'SoftTimeLimitExceeded()' }] },
    });
    expect(result.hashes).toEqual(['f30afa00b85f5cac5ee0bce01b31f08d']);
    expect(result.variants.custom_fingerprint?.hash).toBe('f30afa00b85f5cac5ee0bce01b31f08d');
    expect(result.variants.app).toMatchObject({ hash: null, contributes: false });
  });
});
