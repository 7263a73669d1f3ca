import { describe, expect, it } from 'vitest';
import {
  HeaderLineScanner,
  MAX_HEADER_BYTES,
  parseEnvelopeHeader,
} from '../../../app/server/tunnel/envelope-header';

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

  it('reads a header line that is a view into a larger buffer', () => {
    const whole = bytes(`{"dsn":"${DSN}"}\n\u00ff\u0000binary`);
    const line = whole.subarray(0, whole.indexOf(0x0a));
    expect(parseEnvelopeHeader(line)).toEqual({ ok: true, dsn: DSN });
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
