import { describe, expect, it } from 'vitest';
import { normalizeMessageForGrouping, parameterize } from '#app/server/inbox/grouping/message';
import { formatMessage, normaliseLogentry } from '#app/server/inbox/logentry';

/**
 * Sentry's own table (getsentry/sentry tests/sentry/grouping/test_parameterization.py,
 * `standard_cases` and `incorrect_cases`, at the version ./message.ts follows), each checked
 * alone and with text around it, as Sentry checks them.
 */
const SENTRY_CASES: Array<[name: string, input: string, expected: string]> = [
  ['email', 'test@email.com', '<email>'],
  ['url', 'http://some.email.com', '<url>'],
  ['url - existing behavior', 'tcp://user:pass@email.com:10', 'tcp://user:<email>:<int>'],
  ['hostname - tld', 'example.com', '<hostname>'],
  ['hostname - subdomain', 'www.example.net', '<hostname>'],
  ['ip', '0.0.0.0', '<ip>'],
  ['ip - double colon object property', 'Option::unwrap()', 'Option::unwrap()'],
  ['ip - double colon object property including hex', 'Bee::buzz()', 'Bee::buzz()'],
  [
    'traceparent - header',
    'traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    'traceparent: <traceparent>',
  ],
  ['traceparent - aws', '1-67891233-abcdef012345678912345678', '<traceparent>'],
  [
    'traceparent - aws, but not word boundary',
    'abc1-67891233-abcdef012345678912345678',
    'abc1<int>-<hex>',
  ],
  ['uuid', '7c1811ed-e98f-4c9c-a9f9-58c757ff494f', '<uuid>'],
  [
    'uuid - multiple',
    'bea691f2-2e25-4bec-6838-e0c44b03d60a/7c1811ed-e98f-4c9c-a9f9-58c757ff494f',
    '<uuid>/<uuid>',
  ],
  ['sha1', '5fc35719b9cf96ec602dbc748ff31c587a46961d', '<sha1>'],
  ['md5', '0751007cd28df267e8e051b51f918c60', '<md5>'],
  ['date', '2024-02-20T22:16:36', '<date>'],
  ['date - RFC822', 'Mon, 02 Jan 06 15:04 MST', '<date>'],
  ['date - RFC822Z', 'Mon, 02 Jan 06 15:04 -0700', '<date>'],
  ['date - RFC850 abbreviated weekday', 'Mon, 02-Jan-06 15:04:05 MST', '<date>'],
  ['date - RFC850 full weekday', 'Monday, 02-Jan-06 15:04:05 MST', '<date>'],
  ['date - RFC1123', 'Mon, 02 Jan 2006 15:04:05 MST', '<date>'],
  ['date - RFC1123Z', 'Mon, 02 Jan 2006 15:04:05 -0700', '<date>'],
  ['date - JS minus', 'Mon Jan 02 2006 14:04:05 GMT-0800 (Pacific Standard Time)', '<date>'],
  ['date - JS utc', 'Mon Jan 02 2006 14:04:05 GMT+0000 (UTC)', '<date>'],
  ['date - JS plus', 'Mon Jan 02 2006 14:04:05 GMT+0800 (Pacific Standard Time)', '<date>'],
  ['date - JS minus without tz', 'Mon Jan 02 2006 14:04:05 GMT-0800', '<date>'],
  ['date - JS utc without tz', 'Mon Jan 02 2006 14:04:05 GMT+0000', '<date>'],
  ['date - JS plus without tz', 'Mon Jan 02 2006 14:04:05 GMT+0800', '<date>'],
  ['date - RFC3339', '2006-01-02T15:04:05Z07:00', '<date>'],
  ['date - RFC3339 without offset', '2006-01-02T15:04:05Z', '<date>'],
  ['date - RFC3339Nano', '2006-01-02T15:04:05.999999999Z07:00', '<date>'],
  ['date - RFC3339Nano without offset', '2006-01-02T15:04:05.999999999Z', '<date>'],
  ['date - plain', '2006-01-02', '<date>'],
  ['date - long', 'Jan 18, 2019', '<date>'],
  ['date - datetime space-separated', '2006-01-02 15:04:05', '<date>'],
  ['date - datetime space-separated UTC', '2006-01-02 15:04:05Z', '<date>'],
  ['date - datetime space-separated w offset', '2006-01-02 15:04:05+01:00', '<date>'],
  ['date - datetime T-separated', '2006-01-02T15:04:05', '<date>'],
  ['date - datetime T-separated UTC', '2006-01-02T15:04:05Z', '<date>'],
  ['date - datetime T-separated w offset', '2006-01-02T15:04:05+01:00', '<date>'],
  ['date - datetime compressed space-separated', '20060102 150405', '<date>'],
  ['date - datetime compressed space-separated UTC', '20060102 150405Z', '<date>'],
  ['date - datetime compressed space-separated w offset', '20060102 150405+0100', '<date>'],
  ['date - datetime compressed T-separated', '20060102T150405', '<date>'],
  ['date - datetime compressed T-separated UTC', '20060102T150405Z', '<date>'],
  ['date - datetime compressed T-separated w offset', '20060102T150405+0100', '<date>'],
  ['date - kitchen uppercase without space', '11:21PM', '<date>'],
  ['date - kitchen uppercase with space', '12:31 PM', '<date>'],
  ['date - kitchen lowercase without space', '11:21pm', '<date>'],
  ['date - kitchen lowercase with space', '12:31 pm', '<date>'],
  ['date - kitchen 24-hour', '23:21', '<date>'],
  ['date - time', '15:04:05', '<date>'],
  ['date - basic', 'Mon Jan 02, 1999', '<date>'],
  ['date - datetime compressed date', '20240220 11:55:33.546593', '<date>'],
  ['date - datestamp', '2024-02-23 02:13:53.418', '<date>'],
  ['date - datetime object', 'datetime.datetime(2025, 6, 24, 18, 33, 0, 447640)', '<date>'],
  ['duration - 0ms', '0ms', '<duration>'],
  ['duration - 1ms', '1ms', '<duration>'],
  ['duration - 10ms', '10ms', '<duration>'],
  ['duration - 1000000ms', '1000000ms', '<duration>'],
  ['duration - 0s', '0s', '<duration>'],
  ['duration - 0.100s', '0.100s', '<duration>'],
  ['duration - 1.234s', '1.234s', '<duration>'],
  ['duration - 10s', '10s', '<duration>'],
  ['duration - 100.0000s', '100.0000s', '<duration>'],
  ['swift_txn_id - base', 'tx274a77a8975c4a66aeb24-0052d95365', '<swift_txn_id>'],
  ['swift_txn_id - with suffix', 'tx274a77a8975c4a66aeb24-0052d95365-cluster01', '<swift_txn_id>'],
  ['swift_txn_id - missing prefix', 'ab274a77a8975c4a66aeb24-0052d95365', '<hex>-<hex>'],
  ['hex with prefix - lowercase, 4 digits', '0x9af8', '<hex>'],
  ['hex with prefix - uppercase, 4 digits', '0x9AF8', '<hex>'],
  ['hex with prefix - lowercase, 8 digits', '0x9af8c3be', '<hex>'],
  ['hex with prefix - uppercase, 8 digits', '0x9AF8C3BE', '<hex>'],
  ['hex with prefix - lowercase, 10 digits', '0x9af8c3be3a', '<hex>'],
  ['hex with prefix - uppercase, 10 digits', '0x9AF8C3BE3A', '<hex>'],
  ['hex with prefix - lowercase, 16 digits', '0x9af8c3be3a1231fe', '<hex>'],
  ['hex with prefix - uppercase, 16 digits', '0x9AF8C3BE3A1231FE', '<hex>'],
  ['hex with prefix - lowercase, 24 digits', '0x9af8c3be3a1231fe1121acb1', '<hex>'],
  ['hex with prefix - uppercase, 24 digits', '0x9AF8C3BE3A1231FE1121ACB1', '<hex>'],
  ['hex with prefix - lowercase, no numbers', '0xdeadbeef', '<hex>'],
  ['hex with prefix - uppercase, no numbers', '0xDEADBEEF', '<hex>'],
  ['hex without prefix - lowercase, 4 digits', '9af8', '9af8'],
  ['hex without prefix - uppercase, 4 digits', '9AF8', '9AF8'],
  ['hex without prefix - lowercase, 8 digits', '9af8c3be', '<hex>'],
  ['hex without prefix - uppercase, 8 digits', '9AF8C3BE', '<hex>'],
  ['hex without prefix - lowercase, 10 digits', '9af8c3be3a', '<hex>'],
  ['hex without prefix - uppercase, 10 digits', '9AF8C3BE3A', '<hex>'],
  ['hex without prefix - lowercase, 16 digits', '9af8c3be3a1231fe', '<hex>'],
  ['hex without prefix - uppercase, 16 digits', '9AF8C3BE3A1231FE', '<hex>'],
  ['hex without prefix - lowercase, 24 digits', '9af8c3be3a1231fe1121acb1', '<hex>'],
  ['hex without prefix - uppercase, 24 digits', '9AF8C3BE3A1231FE1121ACB1', '<hex>'],
  ['hex without prefix - lowercase, 128 digits', 'b0'.repeat(64), '<hex>'],
  ['hex without prefix - uppercase, 128 digits', 'B0'.repeat(64), '<hex>'],
  ['hex without prefix - lowercase, no numbers', 'deadbeef', 'deadbeef'],
  ['hex without prefix - uppercase, no numbers', 'DEADBEEF', 'DEADBEEF'],
  ['hex without prefix - lowercase, no numbers until later', 'deadbeef 123', 'deadbeef <int>'],
  ['hex without prefix - uppercase, no numbers until later', 'DEADBEEF 123', 'DEADBEEF <int>'],
  ['hex without prefix - no letters, < 8 digits', '1234567', '<int>'],
  ['hex without prefix - no letters, 8+ digits', '12345678', '<hex>'],
  ['git sha', 'commit a93c7d2', 'commit <git_sha>'],
  ['git sha - all letters', 'commit deadbeef', 'commit deadbeef'],
  ['git sha - all numbers', 'commit 4150908', 'commit <int>'],
  ['float', '0.23', '<float>'],
  ['int', '23', '<int>'],
  ['int - separator', '0:17502', '<int>:<int>'],
  ['int - parens', '{"msg" => "(#239323)', '{"msg" => "(#<int>)'],
  ['int - date - invalid day', '2006-01-40', '<int><int><int>'],
  ['int - date - invalid month', '2006-20-02', '<int><int><int>'],
  ['int - date - invalid year', '10000-01-02', '<int><int><int>'],
  ['int - date - missing day', '2006-01', '<int><int>'],
  ['int - quoted_str whitespace', "b = '1'", "b = '<int>'"],
  ['int - quoted_str whitespace', 'b = "1"', 'b = "<int>"'],
  ['quoted_str - single', "b='1'", 'b=<quoted_str>'],
  ['quoted_str - double', 'b="1"', 'b=<quoted_str>'],
  ['quoted_str - complex', 'b="0.0.0.0 1 a=True"', 'b=<quoted_str>'],
  ['quoted_str - mismatch', 'b=\'value"', 'b=\'value"'],
  ['quoted_str - mismatch', 'b="value\'', 'b="value\''],
  ['bool', 'a=false', 'a=<bool>'],
  ['bool', 'a=False', 'a=<bool>'],
  ['bool', 'a=true', 'a=<bool>'],
  ['bool', 'a=True', 'a=<bool>'],
  ['bool - missing equal', 'False', 'False'],
  ['bool - missing equal', 'true', 'true'],
  ['bool - whitespace', 'a = False', 'a = False'],
  ['bool - whitespace', 'a = true', 'a = true'],
  ['None', 'A quick brown fox', 'A quick brown fox'],
  ['Multiple - ip:port', '0.0.0.0:80', '<ip>:<int>'],
  // Sentry's known problems, kept as Sentry has them.
  ['int - number in word', 'Encoding: utf-8', 'Encoding: utf<int>'],
  ['int - with commas', '4,150,908', '<int>,<int>,<int>'],
  [
    'json - double quotes',
    '{"dogs are great": true, "dog_id": "greatdog1231"}',
    '{"dogs are great": true, "dog_id": "greatdog1231"}',
  ],
  ['random sequence as id', 'invoice k9Mtd2gDcgG', 'invoice k9Mtd2gDcgG'],
];

describe('parameterize: Sentry’s own cases', () => {
  it.each(SENTRY_CASES)('%s: %s', (_name, input, expected) => {
    expect(parameterize(input)).toBe(expected);
    expect(parameterize(`prefix ${input}`)).toBe(`prefix ${expected}`);
    expect(parameterize(`${input} suffix`)).toBe(`${expected} suffix`);
    expect(parameterize(`prefix ${input} suffix`)).toBe(`prefix ${expected} suffix`);
  });
});

describe('parameterize: Python’s Unicode-aware \\b, \\d and \\w', () => {
  it.each([
    // A letter before digits is a word character to Python: no boundary, no <int>.
    ['订单123', '订单123'],
    ['заказ 42 не найден', 'заказ <int> не найден'],
    // Digits beyond ASCII are digits to Python's \d.
    ['٣٤ items', '<int> items'],
    // Python's \s includes the information separators that JavaScript's \s does not.
    ['Mon,\x1f02 Jan 06 15:04 MST', '<date>'],
  ])('%j', (input, expected) => {
    expect(parameterize(input)).toBe(expected);
  });
});

describe('normalizeMessageForGrouping', () => {
  it.each([
    ['one line', 'Order 1234 failed', 'Order <int> failed'],
    ['the first two non-blank lines, then "..."', 'a 1\n\n  \nb 2\nc 3', 'a <int>\nb <int>...'],
    ['two lines are kept whole', 'a\nb', 'a\nb'],
    ['a trailing newline is a change', 'a\n', 'a...'],
    ['Python line breaks, not only \\n', 'a\u2028b\u2029c', 'a\nb...'],
    ['empty stays empty', '', ''],
  ])('%s', (_name, input, expected) => {
    expect(normalizeMessageForGrouping(input)).toBe(expected);
  });
});

describe('logentry formatting, as Relay’s normalize_logentry (../../logentry.ts)', () => {
  it.each<[string, string, unknown, string]>([
    // Relay's own tests (relay-event-normalization/src/normalize/logentry.rs)
    ['python', 'hello, %s!', ['world'], 'hello, world!'],
    ['python named', 'hello, %(name)s!', { name: 'world' }, 'hello, world!'],
    ['java', 'hello, {}!', ['world'], 'hello, world!'],
    ['dotnet', 'hello, {0}!', ['world'], 'hello, world!'],
    ['no params', 'hello, %s!', undefined, 'hello, %s!'],
    // dynfmt's formatting as Relay uses it
    ['numbers and booleans as they read', '%d %s %s', [42, 1.5, true], '42 1.5 true'],
    ['%% is a percent sign', '100%% of %s', ['x'], '100% of x'],
    ['a lone % is text', 'at 100% now %s', ['x'], 'at 100% now x'],
    ['objects as compact JSON', 'got %s', [{ a: [1, 2] }], 'got {"a":[1,2]}'],
    ['%r is JSON', 'got %r', ['x'], 'got "x"'],
    [
      '%x for whole numbers (Rust writes 0x before upper-case digits)',
      '%x %#X %o',
      [255, 255, 8],
      'ff 0xFF 10',
    ],
    ['width and precision are read and ignored', '%5s|%-3.2f', ['a', 1.5], 'a|1.5'],
    ['no exponent, as Rust prints', 'n=%s', [1e-7], 'n=0.0000001'],
    ['curly: positions and names', '{1} {0} {name}', ['a', 'b'], '{1} {0} {name}'],
    ['curly: next after an index', '{} {1} {}', ['a', 'b'], 'a b b'],
    ['curly: by name', 'hi {who}', { who: 'you' }, 'hi you'],
    // Any failure leaves the template, as Relay shows it.
    ['too few params', '%s and %s', ['one'], '%s and %s'],
    ['a name in a list', '%(name)s', ['x'], '%(name)s'],
    ['a position in a map', '%s', { a: 1 }, '%s'],
    ['a null param is missing', 'x=%s', [null], 'x=%s'],
    ['%x of a string', '%x', ['ff'], '%x'],
    ['% wins over {}', '%s {}', ['a', 'b'], 'a {}'],
  ])('%s', (_name, message, params, expected) => {
    expect(formatMessage(message, params) ?? message).toBe(expected);
  });

  it('keeps the template beside the formatted text, as Relay does', () => {
    expect(normaliseLogentry({ message: 'User %s failed', params: ['bob'] }, undefined)).toEqual({
      message: 'User %s failed',
      params: ['bob'],
      formatted: 'User bob failed',
    });
    expect(normaliseLogentry({ message: 'plain' }, undefined)).toEqual({ formatted: 'plain' });
    expect(normaliseLogentry({ message: 'same', formatted: 'same' }, undefined)).toEqual({
      formatted: 'same',
    });
    expect(normaliseLogentry(undefined, 'legacy message')).toEqual({ formatted: 'legacy message' });
    expect(normaliseLogentry({ params: [1] }, undefined)).toBeUndefined();
  });
});

describe('time-safety on hostile 8 KB strings', () => {
  // Each of these made a regex rescan a whole run from each of its positions (quadratic). The
  // scan is linear, so 8 KB of any of them is a few milliseconds; a regression is seconds and
  // trips the test timeout. The results are checked so the work cannot be skipped.
  it.each([
    ['local-part characters without an @', 'a'.repeat(8192), 'a'.repeat(8192)],
    ['local-part characters then an @', `${'x='.repeat(4095)}@@`, `${'x='.repeat(4095)}@@`],
    ['labels without a top-level domain', 'a.'.repeat(4096), 'a.'.repeat(4096)],
    ['digits then a letter', `${'1'.repeat(8191)}x`, `${'1'.repeat(8191)}x`],
    ['digits then an s', `${'1'.repeat(8191)}s`, '<duration>'],
    ['dashes', '-'.repeat(8192), '-'.repeat(8192)],
  ])('%s', (_name, input, expected) => {
    expect(input.length).toBeGreaterThanOrEqual(8192);
    expect(parameterize(input)).toBe(expected);
  });

  it('formats a `%` followed by 8 KB of digits without backtracking', () => {
    const template = `%${'1'.repeat(8192)}`;
    expect(formatMessage(template, [1]) ?? template).toBe(template);
  });
});
