import { describe, expect, it } from 'vitest';
import { splitEnvelope } from '#app/server/inbox/envelope';
import { envelopeBytes } from '#tests/fixtures/inbox-envelopes';

const text = (value: string) => new TextEncoder().encode(value);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
// Bytes that are not UTF-8 and include newlines: only `length` can delimit them.
const binary = Uint8Array.from([0x00, 0x0a, 0xff, 0xfe, 0x0a, 0x0a, 0x80, 0x01]);

describe('splitEnvelope', () => {
  it.each([
    {
      name: 'one JSON item delimited by newline',
      bytes: text('{"event_id":"x"}\n{"type":"event"}\n{"message":"hi"}\n'),
      types: ['event'],
      payloads: ['{"message":"hi"}'],
    },
    {
      name: 'no trailing newline after the last payload',
      bytes: text('{}\n{"type":"session"}\n{"sid":"1"}'),
      types: ['session'],
      payloads: ['{"sid":"1"}'],
    },
    {
      name: 'sized payload containing newlines',
      bytes: text('{}\n{"type":"event","length":9}\n{"a":"\n"}\n{"type":"client_report"}\n{}\n'),
      types: ['event', 'client_report'],
      payloads: ['{"a":"\n"}', '{}'],
    },
    {
      name: 'blank lines between items (Relay skips whitespace before a header)',
      bytes: text('{}\n{"type":"attachment","length":0}\n\n\n\n{"type":"session"}\n{}'),
      types: ['attachment', 'session'],
      payloads: ['', '{}'],
    },
    {
      name: 'empty envelope (header only)',
      bytes: text('{"dsn":"http://k@h/1"}\n'),
      types: [],
      payloads: [],
    },
  ])('$name', ({ bytes, types, payloads }) => {
    const envelope = splitEnvelope(bytes);
    expect(envelope.problem).toBeUndefined();
    expect(envelope.items.map((item) => item.header.type)).toEqual(types);
    expect(envelope.items.map((item) => decode(item.payload))).toEqual(payloads);
  });

  it('keeps a binary attachment byte for byte and reads the item after it', () => {
    const bytes = envelopeBytes({ event_id: 'e' }, [
      { header: { type: 'attachment', filename: 'blob.bin' }, payload: binary, sized: true },
      { header: { type: 'event' }, payload: { message: 'after the attachment' } },
    ]);
    const envelope = splitEnvelope(bytes);
    expect(envelope.items.map((item) => item.header.type)).toEqual(['attachment', 'event']);
    expect(Array.from(envelope.items[0]?.payload ?? [])).toEqual(Array.from(binary));
    expect(decode(envelope.items[1]?.payload ?? new Uint8Array())).toBe(
      '{"message":"after the attachment"}',
    );
  });

  it.each([
    { name: 'header is not JSON', bytes: text('not json\n{"type":"event"}\n{}\n'), items: 0 },
    { name: 'header is a JSON array', bytes: text('[1]\n'), items: 0 },
    {
      name: 'an item header is not JSON',
      bytes: text('{}\n{"type":"event"}\n{}\ngarbage\n{}\n'),
      items: 1,
    },
    {
      name: 'a sized payload is not followed by a newline',
      bytes: text('{}\n{"type":"span","length":2}\n{}{"type":"span"}\n{}\n'),
      items: 0,
    },
    {
      name: 'a sized payload is cut short (torn write)',
      bytes: text('{}\n{"type":"event"}\n{}\n{"type":"attachment","length":100}\nabc'),
      items: 1,
    },
  ])('reports a problem, keeping earlier items, when $name', ({ bytes, items }) => {
    const envelope = splitEnvelope(bytes);
    expect(envelope.problem).toEqual(expect.any(String));
    expect(envelope.items).toHaveLength(items);
  });
});
