import { describe, expect, it } from 'vitest';
import { formatMessage, normaliseLogentry } from '#app/server/inbox/logentry';

describe('formatMessage, as Relay formats a logentry (dynfmt)', () => {
  it.each([
    // Relay's own cases (relay-event-normalization/src/normalize/logentry.rs).
    { template: 'hello, %s!', params: ['world'], expected: 'hello, world!' },
    { template: 'hello, %(name)s!', params: { name: 'world' }, expected: 'hello, world!' },
    { template: 'hello, {}!', params: ['world'], expected: 'hello, world!' },
    { template: 'hello, {0}!', params: ['world'], expected: 'hello, world!' },
    // @sentry/core's parameterize sends `%s` templates with the values as given.
    { template: 'User %s failed', params: ['alice'], expected: 'User alice failed' },
    {
      template: 'User %s failed %d times',
      params: ['alice', 3],
      expected: 'User alice failed 3 times',
    },
    { template: '%d%% done', params: [42], expected: '42% done' },
    { template: '%i and %u and %f', params: [1, 2, 1.5], expected: '1 and 2 and 1.5' },
    { template: 'value %r', params: ['x'], expected: 'value "x"' },
    {
      template: 'hex %x, HEX %X, oct %o',
      params: [255, 255, 8],
      expected: 'hex ff, HEX FF, oct 10',
    },
    { template: '%s and %s', params: [true, { a: 1 }], expected: 'true and {"a":1}' },
    { template: '%5s|%-3d|%.2f', params: ['a', 1, 2.71], expected: 'a|1|2.71' },
    { template: '{1} before {0}', params: ['a', 'b'], expected: 'b before a' },
    { template: 'hi {name}', params: { name: 'bob' }, expected: 'hi bob' },
    { template: '{} {} {0}', params: ['x', 'y'], expected: 'x y x' },
  ])('$template with $params', ({ template, params, expected }) => {
    expect(formatMessage(template, params)).toBe(expected);
  });

  it.each([
    { why: 'a parameter is missing', template: '%s and %s', params: ['one'] },
    { why: 'a parameter is null', template: 'hello %s', params: [null] },
    { why: 'positions need a list', template: 'hello %s', params: { name: 'x' } },
    { why: 'names need an object', template: 'hello %(name)s', params: ['x'] },
    { why: 'a name is missing', template: 'hello {name}', params: { other: 1 } },
    { why: '%x needs an integer', template: '%x', params: ['ff'] },
    { why: 'no placeholder kind', template: 'hello', params: ['x'] },
    { why: '"100% done" reads "% d" as a placeholder', template: '100% done', params: [] },
  ])('gives nothing when $why', ({ template, params }) => {
    expect(formatMessage(template, params)).toBeUndefined();
  });

  it('uses the old Python style when the template has a %, whatever braces it has', () => {
    expect(formatMessage('{} is %s', ['x'])).toBe('{} is x');
  });
});

describe('normaliseLogentry, as Relay normalises it', () => {
  it.each([
    {
      name: 'a template with params gains its formatted text and keeps the template',
      logentry: { message: 'User %s failed', params: ['alice'] },
      expected: { message: 'User %s failed', params: ['alice'], formatted: 'User alice failed' },
    },
    {
      name: 'a formatted text the SDK sent is kept',
      logentry: { message: 'User %s failed', params: ['alice'], formatted: 'custom' },
      expected: { message: 'User %s failed', params: ['alice'], formatted: 'custom' },
    },
    {
      name: 'a message alone becomes the formatted text',
      logentry: { message: 'plain' },
      expected: { formatted: 'plain' },
    },
    {
      name: 'a template that cannot be formatted stays as the formatted text',
      logentry: { message: 'User %s and %s', params: ['alice'] },
      expected: { params: ['alice'], formatted: 'User %s and %s' },
    },
    {
      name: 'a message equal to the formatted text is dropped',
      logentry: { message: 'same', formatted: 'same' },
      expected: { formatted: 'same' },
    },
  ])('$name', ({ logentry, expected }) => {
    expect(normaliseLogentry(logentry, undefined)).toEqual(expected);
  });

  it('reads the legacy message string, and prefers logentry when both are sent', () => {
    expect(normaliseLogentry(undefined, 'hello')).toEqual({ formatted: 'hello' });
    expect(normaliseLogentry({ message: 'a %s', params: ['b'] }, 'ignored')).toEqual({
      message: 'a %s',
      params: ['b'],
      formatted: 'a b',
    });
    expect(normaliseLogentry(undefined, { formatted: 'legacy object' })).toEqual({
      formatted: 'legacy object',
    });
  });

  it('drops a logentry with neither message nor formatted text', () => {
    expect(normaliseLogentry({ params: ['x'] }, undefined)).toBeUndefined();
    expect(normaliseLogentry(42, undefined)).toBeUndefined();
  });
});
