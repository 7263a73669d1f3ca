/**
 * Tests of allow-list, one section per part of the module, in its order.
 */
import { describe, expect, it } from 'vitest';
import { type Dsn, isDsn, LOCAL_INBOX_DSN, parseDsn } from '#app/monitoring/dsn';
import {
  createAllowList,
  HeaderLineScanner,
  MAX_HEADER_BYTES,
  parseEnvelopeHeader,
  parseTunnelQuery,
  topLevelKeyCount,
} from '#app/server/tunnel/allow-list';

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

const bytes = (text: string) => Buffer.from(text, 'utf8');
const DSN = 'https://key@o1.ingest.us.sentry.io/2';

describe('parseEnvelopeHeader', () => {
  it.each([
    [`{"dsn":"${DSN}"}`, { ok: true, dsn: DSN }],
    [`{"dsn":"${DSN}","event_id":"abc"}`, { ok: true, dsn: DSN, eventId: 'abc' }],
    [`{"dsn":"${DSN}","event_id":42,"sdk":{}}`, { ok: true, dsn: DSN }],
    [`{"dsn":"${DSN}"}\r`, { ok: true, dsn: DSN }],
  ])('reads %s', (line, expected) => {
    expect(parseEnvelopeHeader(bytes(line))).toEqual(expected);
  });

  it.each([
    ['', 'empty envelope header'],
    ['not json', 'envelope header is not JSON'],
    ['{"dsn":', 'envelope header is not JSON'],
    ['"a string"', 'envelope header is not a JSON object'],
    ['null', 'envelope header is not a JSON object'],
    ['[1]', 'envelope header is not a JSON object'],
    ['{}', 'envelope header has no dsn'],
    ['{"event_id":"abc"}', 'envelope header has no dsn'],
    ['{"dsn":""}', 'envelope header has no dsn'],
    ['{"dsn":42}', 'envelope header has no dsn'],
  ])('rejects %j: %s', (line, reason) => {
    expect(parseEnvelopeHeader(bytes(line))).toEqual({ ok: false, reason });
  });

  // Two top-level dsn keys: JSON.parse keeps the last, another parser may keep the first.
  const MORE_THAN_ONE = { ok: false, reason: 'envelope header has more than one dsn' };
  const OTHER = 'https://other@o9.ingest.us.sentry.io/9';
  it.each([
    ['two dsn keys', `{"dsn":"${OTHER}","dsn":"${DSN}"}`, MORE_THAN_ONE],
    ['the same dsn twice', `{"dsn":"${DSN}","dsn":"${DSN}"}`, MORE_THAN_ONE],
    ['two dsn keys with whitespace', `{ "dsn" : "${OTHER}" ,\t"dsn":"${DSN}" }`, MORE_THAN_ONE],
    [
      'the second after a nested object',
      `{"dsn":"${OTHER}","sdk":{"a":[1,{}]},"dsn":"${DSN}"}`,
      MORE_THAN_ONE,
    ],
    ['a second dsn spelled with escapes', `{"dsn":"${OTHER}","\\u0064sn":"${DSN}"}`, MORE_THAN_ONE],
    ['both spelled with escapes', `{"\\u0064sn":"${OTHER}","ds\\u006e":"${DSN}"}`, MORE_THAN_ONE],
    ['a second dsn whose value is not a string', `{"dsn":"${DSN}","dsn":null}`, MORE_THAN_ONE],
    [
      'one dsn and "dsn" inside a string value',
      `{"dsn":"${DSN}","note":"\\"dsn\\":\\"${OTHER}\\""}`,
      { ok: true, dsn: DSN },
    ],
    [
      'one dsn and a value that is "dsn"',
      `{"dsn":"${DSN}","event_id":"dsn"}`,
      { ok: true, dsn: DSN, eventId: 'dsn' },
    ],
    [
      'one dsn and a nested dsn key',
      `{"dsn":"${DSN}","trace":{"dsn":"${OTHER}"}}`,
      { ok: true, dsn: DSN },
    ],
    [
      'one dsn and a dsn key in an array',
      `{"dsn":"${DSN}","list":[{"dsn":"${OTHER}"}]}`,
      { ok: true, dsn: DSN },
    ],
    [
      'one dsn and a key that only starts like it',
      `{"dsn":"${DSN}","dsn2":"${OTHER}","dsn\\"":1}`,
      { ok: true, dsn: DSN },
    ],
    [
      'one dsn spelled with an escape, other escapes',
      `{"\\u0064sn":"${DSN}","m":"\\u00e9\\\\"}`,
      { ok: true, dsn: DSN },
    ],
  ])('%s', (_name, line, expected) => {
    expect(parseEnvelopeHeader(bytes(line))).toEqual(expected);
  });

  it('reads a header line that is a view into a larger buffer', () => {
    const whole = bytes(`{"dsn":"${DSN}"}\n\u00ff\u0000binary`);
    const line = whole.subarray(0, whole.indexOf(0x0a));
    expect(parseEnvelopeHeader(line)).toEqual({ ok: true, dsn: DSN });
  });
});

describe('topLevelKeyCount', () => {
  it.each([
    ['{}', 0],
    ['{"dsn":1}', 1],
    ['{"dsn":1,"dsn":2,"dsn":3}', 3],
    ['{"a":"dsn","b":"\\"dsn\\""}', 0],
    ['{"a":{"dsn":1},"b":[{"dsn":2}]}', 0],
    ['{"\\u0064\\u0073\\u006e":1,"dsn":2}', 2],
    ['{"a\\\\":"dsn","dsn":1}', 1],
  ])('%s has %i', (text, count) => {
    expect(topLevelKeyCount(text, 'dsn')).toBe(count);
  });
});

describe('HeaderLineScanner', () => {
  const run = (chunks: Uint8Array[]) => {
    const scanner = new HeaderLineScanner();
    return chunks.map((chunk) => scanner.push(chunk));
  };

  it.each([
    ['newline in the first chunk', [bytes('{}\nrest')], [2]],
    ['newline in a later chunk', [bytes('{"a"'), bytes(':1}\nx')], [-1, 3]],
    ['newline first in a chunk', [bytes('{}'), bytes('\n')], [-1, 0]],
    ['no newline yet', [bytes('{}')], [-1]],
    ['newline exactly at the limit', [Buffer.alloc(MAX_HEADER_BYTES, 0x20), bytes('\n')], [-1, 0]],
    [
      'newline past the limit',
      [Buffer.alloc(MAX_HEADER_BYTES, 0x20), bytes(' \n')],
      [-1, 'too-long'],
    ],
    [
      'newline past the limit in one chunk',
      [Buffer.concat([Buffer.alloc(MAX_HEADER_BYTES + 1, 0x20), bytes('\n')])],
      ['too-long'],
    ],
  ])('%s', (_name, chunks, expected) => {
    expect(run(chunks)).toEqual(expected);
  });
});
