import { describe, expect, it } from 'vitest';
import {
  envelopeUrlOf,
  formatDsn,
  isDsn,
  organisationOf,
  parseDsn,
  sameDsn,
  tunnelTargetOf,
  tunnelUrlOf,
} from '#app/monitoring/dsn';

function dsnOf(input: string) {
  const parsed = parseDsn(input);
  if (!isDsn(parsed)) throw new Error(`bad DSN in test: ${parsed.error}`);
  return parsed;
}

describe('parseDsn', () => {
  it.each([
    ['not a url', 'not a URL'],
    ['ftp://key@o1.ingest.sentry.io/2', 'scheme must be http or https'],
    ['https://o1.ingest.sentry.io/2', 'no public key before the @'],
    ['https://key@o1.ingest.sentry.io/', 'must end with a numeric project id'],
    ['https://key@o1.ingest.sentry.io/abc', 'must end with a numeric project id'],
    ['https://key@o1.ingest.sentry.io/2?x=1', 'must not have a query or fragment'],
    ['http://%zz@localhost/1', 'public key is not valid percent-encoding'],
  ])('rejects %s', (input, error) => {
    expect(parseDsn(input)).toEqual({ error });
  });

  it('reads key, host, port, path and project', () => {
    expect(parseDsn('http://abc@sentry.example.com:9000/prefix/sub/42')).toEqual({
      protocol: 'http',
      publicKey: 'abc',
      host: 'sentry.example.com',
      port: '9000',
      path: '/prefix/sub',
      projectId: '42',
    });
  });

  it('round-trips through formatDsn', () => {
    const input = 'https://abc@o12.ingest.us.sentry.io/3456';
    expect(formatDsn(dsnOf(input))).toBe(input);
  });
});

describe('tunnelTargetOf', () => {
  it.each([
    ['https://k@o123.ingest.us.sentry.io/456', { o: '123', p: '456', r: 'us' }],
    ['https://k@o123.ingest.de.sentry.io/456', { o: '123', p: '456', r: 'de' }],
    ['https://k@o123.ingest.sentry.io/456', { o: '123', p: '456' }],
    ['https://k@sentry.example.com/7', { o: '0', p: '7' }],
    ['http://k@127.0.0.1:9000/1', { o: '0', p: '1' }],
    // A self-hosted host that merely contains "ingest" has no organisation, so no region either.
    ['https://k@errors.ingest.us.example.com/5', { o: '0', p: '5' }],
  ])('%s -> %o', (input, target) => {
    expect(tunnelTargetOf(dsnOf(input))).toEqual(target);
  });
});

describe('organisationOf', () => {
  it.each([
    ['https://k@o123.ingest.us.sentry.io/456', '123'],
    ['https://k@o7.ingest.sentry.io/9', '7'],
    ['https://k@sentry.example.com/5', undefined],
    ['https://k@org.sentry.example.com/5', undefined],
  ])('%s names %s', (input, organisation) => {
    expect(organisationOf(dsnOf(input))).toBe(organisation);
  });
});

describe('tunnelUrlOf and envelopeUrlOf', () => {
  it.each([
    [
      'https://k@o123.ingest.us.sentry.io/456',
      '/monitoring?o=123&p=456&r=us',
      'https://o123.ingest.us.sentry.io/api/456/envelope/',
    ],
    ['http://k@127.0.0.1:9000/1', '/monitoring?o=0&p=1', 'http://127.0.0.1:9000/api/1/envelope/'],
    [
      'https://k@sentry.example.com/base/7',
      '/monitoring?o=0&p=7',
      'https://sentry.example.com/base/api/7/envelope/',
    ],
  ])('%s', (input, tunnel, envelope) => {
    const dsn = dsnOf(input);
    expect(tunnelUrlOf(dsn)).toBe(tunnel);
    expect(envelopeUrlOf(dsn)).toBe(envelope);
  });
});

describe('sameDsn', () => {
  const base = 'https://k@o1.ingest.us.sentry.io/2';
  it.each([
    [base, true],
    ['https://other@o1.ingest.us.sentry.io/2', false],
    ['http://k@o1.ingest.us.sentry.io/2', false],
    ['https://k@o1.ingest.us.sentry.io:8443/2', false],
    ['https://k@o1.ingest.us.sentry.io/x/2', false],
    ['https://k@o1.ingest.us.sentry.io/3', false],
    ['https://k@o1.ingest.de.sentry.io/2', false],
  ])('%s is the same DSN: %s', (other, same) => {
    expect(sameDsn(dsnOf(base), dsnOf(other))).toBe(same);
  });
});
