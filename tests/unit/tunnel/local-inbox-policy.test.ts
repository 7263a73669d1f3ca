import type { Envelope } from '@sentry/core';
import { createEnvelope, serializeEnvelope } from '@sentry/core';
import { describe, expect, it } from 'vitest';
import { itemTypesOf, keptInLocalInbox } from '../../../app/server/tunnel/local-inbox-policy';

const DSN = 'http://localinbox@localhost/1';
const bytes = (value: string | Uint8Array) =>
  typeof value === 'string' ? Buffer.from(value) : Buffer.from(value);
const lines = (...parts: (string | Buffer)[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));

/** An envelope serialised by Sentry's own SDK code. */
const sdk = (items: unknown[]) =>
  bytes(serializeEnvelope(createEnvelope({ dsn: DSN, sent_at: '' }, items as never) as Envelope));

const binary = Buffer.from([0x0a, 0xff, 0x00, 0x0a, 0x7b, 0x0a]);

describe('itemTypesOf', () => {
  it.each<[string, Buffer, string[]]>([
    ['an error event', sdk([[{ type: 'event' }, { event_id: 'a', message: 'x\ny' }]]), ['event']],
    ['a span envelope', sdk([[{ type: 'span' }, { items: [] }]]), ['span']],
    ['a session', sdk([[{ type: 'session' }, { sid: 's' }]]), ['session']],
    [
      'an event with a binary attachment',
      sdk([
        [{ type: 'event' }, { event_id: 'a' }],
        [{ type: 'attachment', length: binary.length, filename: 'a.bin' }, new Uint8Array(binary)],
      ]),
      ['event', 'attachment'],
    ],
    [
      'a binary payload with length, then another item',
      lines(
        '{}\n',
        `{"type":"replay_recording","length":${binary.length}}\n`,
        binary,
        '\n{"type":"client_report"}\n{}',
      ),
      ['replay_recording', 'client_report'],
    ],
    [
      'a payload without length runs to the newline',
      lines('{}\n{"type":"client_report"}\n{"a":1}\n{"type":"event"}\n{}'),
      ['client_report', 'event'],
    ],
    ['a header line only', lines('{"dsn":"x"}'), []],
    ['an unreadable item header', lines('{}\nnot json\n{}'), []],
  ])('%s', (_name, envelope, expected) => {
    expect(itemTypesOf(envelope)).toEqual(expected);
  });
});

describe('keptInLocalInbox', () => {
  it.each<[string, Buffer, boolean]>([
    ['error event', sdk([[{ type: 'event' }, { event_id: 'a' }]]), true],
    ['user feedback', sdk([[{ type: 'feedback' }, { event_id: 'a' }]]), true],
    ['span', sdk([[{ type: 'span' }, {}]]), false],
    ['transaction', sdk([[{ type: 'transaction' }, {}]]), false],
    ['session', sdk([[{ type: 'session' }, {}]]), false],
    ['client report', sdk([[{ type: 'client_report' }, {}]]), false],
    ['nothing readable', lines('{}'), false],
  ])('%s -> %s', (_name, envelope, expected) => {
    expect(keptInLocalInbox(envelope)).toBe(expected);
  });
});
