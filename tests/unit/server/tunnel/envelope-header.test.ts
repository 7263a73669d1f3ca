import { describe, expect, it } from 'vitest';
import {
  HeaderLineScanner,
  MAX_HEADER_BYTES,
  parseEnvelopeHeader,
  topLevelKeyCount,
} from '#app/server/tunnel/envelope-header.server';

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
