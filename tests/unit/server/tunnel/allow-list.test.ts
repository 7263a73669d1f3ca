import { describe, expect, it } from 'vitest';
import { type Dsn, isDsn, parseDsn } from '#app/monitoring/dsn';
import { LOCAL_INBOX_DSN } from '#app/monitoring/filters';
import { createAllowList, parseTunnelQuery } from '#app/server/tunnel/allow-list';

const dsn = (text: string): Dsn => {
  const parsed = parseDsn(text);
  if (!isDsn(parsed)) throw new Error(parsed.error);
  return parsed;
};

const SAAS = 'https://abc@o123.ingest.us.sentry.io/456';
const SAAS_DE = 'https://def@o123.ingest.de.sentry.io/789';
const SELF_HOSTED = 'https://key@sentry.example.com/sentry/7';
const LOCAL_TEST = 'http://publickey@127.0.0.1:9000/7';

const list = createAllowList([SAAS, SAAS_DE, SELF_HOSTED, LOCAL_TEST].map(dsn));

describe('createAllowList: the query must name an allowed DSN', () => {
  it.each([
    [{ o: '123', p: '456', r: 'us' }, [SAAS]],
    [{ o: '123', p: '789', r: 'de' }, [SAAS_DE]],
    // Two self-hosted DSNs look alike from the query: the header decides between them.
    [{ o: '0', p: '7' }, [SELF_HOSTED, LOCAL_TEST]],
    [{ o: '123', p: '456' }, undefined],
    [{ o: '123', p: '456', r: 'de' }, undefined],
    [{ o: '124', p: '456', r: 'us' }, undefined],
    [{ o: '0', p: '456' }, undefined],
  ])('%j -> %j', (target, expected) => {
    const candidates = list.candidatesFor(target);
    expect(candidates?.map((candidate) => candidate.canonical)).toEqual(expected);
  });
});

describe('createAllowList: the header DSN must be exactly the allowed DSN', () => {
  it.each([
    [{ o: '123', p: '456', r: 'us' }, SAAS, SAAS],
    [{ o: '123', p: '456', r: 'us' }, 'https://abc@O123.INGEST.US.SENTRY.IO/456', SAAS],
    [{ o: '0', p: '7' }, SELF_HOSTED, SELF_HOSTED],
    [{ o: '0', p: '7' }, 'https://key@sentry.example.com/sentry/7', SELF_HOSTED],
    [{ o: '0', p: '7' }, LOCAL_TEST, LOCAL_TEST],
    // Another key, scheme, host, port, path or project: not the allowed DSN.
    [{ o: '123', p: '456', r: 'us' }, 'https://other@o123.ingest.us.sentry.io/456', undefined],
    [{ o: '123', p: '456', r: 'us' }, 'http://abc@o123.ingest.us.sentry.io/456', undefined],
    [{ o: '123', p: '456', r: 'us' }, 'https://abc@o123.ingest.us.sentry.io:8443/456', undefined],
    [{ o: '123', p: '456', r: 'us' }, 'https://abc@o123.ingest.us.sentry.io/x/456', undefined],
    [{ o: '123', p: '456', r: 'us' }, 'https://abc@o123.ingest.us.sentry.io/457', undefined],
    [{ o: '123', p: '456', r: 'us' }, 'https://abc@evil.example/456', undefined],
    [{ o: '123', p: '456', r: 'us' }, SAAS_DE, undefined],
    [{ o: '0', p: '7' }, 'http://publickey@127.0.0.1:9001/7', undefined],
    [{ o: '123', p: '456', r: 'us' }, 'not a dsn', undefined],
  ])('query %j, header %s -> %s', (target, headerDsn, expected) => {
    const candidates = list.candidatesFor(target) ?? [];
    expect(list.match(candidates, headerDsn)?.canonical).toBe(expected);
  });

  it('forwards to the allowed DSN’s own envelope endpoint', () => {
    const [saas] = list.candidatesFor({ o: '123', p: '456', r: 'us' }) ?? [];
    const [selfHosted] = list.candidatesFor({ o: '0', p: '7' }) ?? [];
    expect(saas?.envelopeUrl.href).toBe('https://o123.ingest.us.sentry.io/api/456/envelope/');
    expect(selfHosted?.envelopeUrl.href).toBe('https://sentry.example.com/sentry/api/7/envelope/');
  });
});

describe('createAllowList: local inbox DSN', () => {
  it.each([
    [LOCAL_INBOX_DSN, true],
    [SAAS, false],
  ])('%s is local: %s', (text, local) => {
    const withLocal = createAllowList([dsn(LOCAL_INBOX_DSN), dsn(SAAS)], LOCAL_INBOX_DSN);
    const target = text === SAAS ? { o: '123', p: '456', r: 'us' } : { o: '0', p: '1' };
    const candidates = withLocal.candidatesFor(target) ?? [];
    expect(withLocal.match(candidates, text)?.local).toBe(local);
  });
});

describe('parseTunnelQuery', () => {
  it.each([
    ['/monitoring?o=123&p=456', { o: '123', p: '456' }],
    ['/monitoring?o=123&p=456&r=us', { o: '123', p: '456', r: 'us' }],
    ['?p=1&o=0', { o: '0', p: '1' }],
    ['/monitoring?o=0&p=1&extra=ignored', { o: '0', p: '1' }],
    [`/monitoring?o=${'9'.repeat(20)}&p=1`, { o: '9'.repeat(20), p: '1' }],
  ])('accepts %s', (url, target) => {
    expect(parseTunnelQuery(url)).toEqual({ ok: true, target });
  });

  it.each([
    ['/monitoring', 'o'],
    ['/monitoring?p=1', 'o'],
    ['/monitoring?o=1', 'p'],
    ['/monitoring?o=&p=1', 'o'],
    ['/monitoring?o=abc&p=1', 'o'],
    ['/monitoring?o=-1&p=1', 'o'],
    ['/monitoring?o=1.5&p=1', 'o'],
    [`/monitoring?o=${'9'.repeat(21)}&p=1`, 'o'],
    ['/monitoring?o=1&p=1%2F..%2Fevil', 'p'],
    ['/monitoring?o=1&p=%20', 'p'],
    ['/monitoring?o=1&p=1&r=US', 'r'],
    ['/monitoring?o=1&p=1&r=usa', 'r'],
    ['/monitoring?o=1&p=1&r=', 'r'],
    ['/monitoring?o=1&p=1&r=u1', 'r'],
  ])('rejects %s naming "%s"', (url, parameter) => {
    const result = parseTunnelQuery(url);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(`"${parameter}"`);
  });
});
