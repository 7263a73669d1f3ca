/**
 * Tests of envelope, one section per part of the module, in its order.
 */

import {
  addItemToEnvelope,
  createAttachmentEnvelopeItem,
  createClientReportEnvelope,
  createEventEnvelope,
  type Envelope,
  makeDsn,
  serializeEnvelope,
} from '@sentry/core';
import { describe, expect, it } from 'vitest';
import { SDK_METADATA } from '#app/monitoring/recorder/recorder';
import { sessionEnvelope } from '#app/monitoring/start-browser-monitoring';
import {
  ENVELOPE_LIMITS,
  envelopeOriginProblem,
  readEnvelope,
  splitEnvelope,
} from '#app/server/inbox/envelope';
import { envelopeBytes } from '#tests/fixtures/inbox-envelopes';
import {
  javaEnvelopes,
  javaThreadEvent,
  pythonEnvelopes,
  pythonLogEvent,
  relayEnvelopes,
  sdkEventEnvelope,
} from '#tests/fixtures/real-envelopes';

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

const concat = (...parts: Array<string | Uint8Array>) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? text(part) : part)));
const serialized = (envelope: Envelope) => {
  const value = serializeEnvelope(envelope);
  return typeof value === 'string' ? text(value) : value;
};
const dsn = makeDsn('http://public@localhost:3000/1');
const ID = '9ec79c33ec9942ab8353589fcb2e04dc';

function rejected(bytes: Uint8Array) {
  const result = readEnvelope(bytes);
  if (result.ok) throw new Error('accepted');
  return { status: result.status, reason: result.reason };
}

function accepted(bytes: Uint8Array) {
  const result = readEnvelope(bytes);
  if (!result.ok) throw new Error(`rejected: ${result.reason}`);
  return result.envelope;
}

const framing = (cause: string) => ({ status: 400, reason: `invalid event envelope: ${cause}` });
const NO_NEWLINE = framing('missing newline after header or payload');
const BAD_HEADER = framing('invalid envelope header');
const BAD_ITEM_HEADER = framing('invalid item header');
const EOF = framing('unexpected end of file');
const overflow = (type: string) => ({
  status: 413,
  reason: `envelope exceeded size limits for type '${type}'`,
});

/** `count` items of one kind: the header line, then the payload line. */
const many = (count: number, header: string, payload = '{}') =>
  `${header}\n${payload}\n`.repeat(count);

describe('readEnvelope rejects what Relay answers 400', () => {
  it.each([
    {
      name: 'an empty body',
      bytes: text(''),
      expected: { status: 400, reason: 'empty request body' },
    },
    {
      name: 'only whitespace',
      bytes: text('\n \r\n'),
      expected: framing('missing envelope header'),
    },
    {
      name: 'a header that is not JSON',
      bytes: text('not json\n{"type":"event"}\n{}\n'),
      expected: BAD_HEADER,
    },
    {
      name: 'a header that is a JSON array',
      bytes: text('[]\n{"type":"event"}\n{}\n'),
      expected: BAD_HEADER,
    },
    {
      name: 'a header that never closes',
      bytes: text('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"'),
      expected: BAD_HEADER,
    },
    {
      name: 'text after the header on its line',
      bytes: text('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"} x\n{"type":"event"}\n{}\n'),
      expected: NO_NEWLINE,
    },
    {
      name: 'a header line ending in \\r\\n',
      bytes: text('{}\r\n{"type":"event"}\n{}\n'),
      expected: NO_NEWLINE,
    },
    {
      name: 'an event_id that is not a UUID',
      bytes: text('{"event_id":"a/b?c#d"}\n{"type":"event"}\n{}\n'),
      expected: BAD_HEADER,
    },
    {
      name: 'an event_id that is a number',
      bytes: text('{"event_id":42}\n{"type":"event"}\n{}\n'),
      expected: BAD_HEADER,
    },
    {
      name: 'a sent_at that is not a datetime',
      bytes: text('{"sent_at":"yesterday"}\n{"type":"session"}\n{}\n'),
      expected: BAD_HEADER,
    },
    {
      name: 'a header followed by a blank line',
      bytes: text('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}\n\n'),
      expected: EOF,
    },
    {
      name: 'an item header that is not JSON',
      bytes: text('{}\n{"type":"event"}\n{}\ngarbage\n{}\n'),
      expected: BAD_ITEM_HEADER,
    },
    {
      name: 'an item header without type',
      bytes: text('{}\n{"length":2}\n{}\n'),
      expected: BAD_ITEM_HEADER,
    },
    {
      name: 'an item type that is not a string',
      bytes: text('{}\n{"type":1}\n{}\n'),
      expected: BAD_ITEM_HEADER,
    },
    {
      name: 'an item header that is a JSON array',
      bytes: text('{}\n["event"]\n{}\n'),
      expected: BAD_ITEM_HEADER,
    },
    {
      name: 'a negative length',
      bytes: text('{}\n{"type":"attachment","length":-1}\n\n'),
      expected: BAD_ITEM_HEADER,
    },
    {
      name: 'a length given as text',
      bytes: text('{}\n{"type":"attachment","length":"2"}\nab\n'),
      expected: BAD_ITEM_HEADER,
    },
    {
      name: 'a content_type that is not a string',
      bytes: text('{}\n{"type":"attachment","content_type":5}\nab\n'),
      expected: BAD_ITEM_HEADER,
    },
    {
      name: 'an item header that is not UTF-8',
      bytes: concat('{}\n{"type":"ev', Uint8Array.of(0xff), 'ent"}\n{}\n'),
      expected: BAD_ITEM_HEADER,
    },
    {
      name: 'an item header that never closes',
      bytes: text('{}\n{"type":"event"'),
      expected: BAD_ITEM_HEADER,
    },
    {
      name: 'text after an item header on its line',
      bytes: text('{}\n{"type":"event"} {}\n'),
      expected: NO_NEWLINE,
    },
    {
      name: 'a length past the end',
      bytes: text('{}\n{"type":"attachment","length":100}\nabc'),
      expected: EOF,
    },
    {
      name: 'a sized payload not followed by a newline',
      bytes: text('{}\n{"type":"span","length":2}\n{}{"type":"span"}\n{}\n'),
      expected: NO_NEWLINE,
    },
    {
      name: 'a blank line after the last item',
      bytes: text('{}\n{"type":"event"}\n{}\n\n'),
      expected: EOF,
    },
    {
      name: 'a good item, then one cut short',
      bytes: text('{}\n{"type":"event","length":2}\n{}\n{"type":"attachment","length":9}\nshort'),
      expected: EOF,
    },
    {
      // `ItemType::is_internal` (relay-server/src/envelope/item.rs); the envelope endpoint's
      // `BadStoreRequest::InternalEnvelope`, "envelope contains internal items".
      name: 'an item of the internal type integration',
      bytes: text(
        '{}\n{"type":"integration","content_type":"application/vnd.sentry.integration.otel.logs+json"}\n{}\n',
      ),
      expected: { status: 400, reason: 'envelope contains internal items' },
    },
    {
      // `EnvelopeHeaders` is a serde-derived struct: a field given twice is "duplicate field
      // `sent_at`", an `InvalidHeader` (relay-server/src/envelope/mod.rs, `parse_headers`).
      name: 'a header with sent_at twice',
      bytes: text(
        '{"sent_at":"2026-11-28T00:00:00Z","sent_at":"2026-11-28T00:00:01Z"}\n{"type":"session"}\n{}\n',
      ),
      expected: BAD_HEADER,
    },
    {
      name: 'a header with event_id twice, both valid',
      bytes: text(`{"event_id":"${ID}","event_id":"${ID}"}\n{"type":"event"}\n{}\n`),
      expected: BAD_HEADER,
    },
    {
      name: 'an item header with type twice',
      bytes: text('{}\n{"type":"event","type":"event"}\n{}\n'),
      expected: BAD_ITEM_HEADER,
    },
    {
      // `ItemHeaders::length` is an `Option<u32>`: serde_json refuses the float `41.0`
      // ("invalid type: floating point"), an `InvalidItemHeader` (`Item::parse`, item.rs).
      name: 'an item length of 41.0',
      bytes: text(
        '{}\n{"type":"event","length":41.0}\n{"message":"hello world","level":"error"}\n',
      ),
      expected: BAD_ITEM_HEADER,
    },
    {
      name: 'an item length of 4.1e1',
      bytes: text(
        '{}\n{"type":"event","length":4.1e1}\n{"message":"hello world","level":"error"}\n',
      ),
      expected: BAD_ITEM_HEADER,
    },
  ])('$name', ({ bytes, expected }) => {
    expect(rejected(bytes)).toEqual(expected);
  });
});

describe('envelopeOriginProblem: the envelope origin against the request (Relay 400s a mismatch)', () => {
  // Relay's test_parse_request_validate_origin (relay-server/src/envelope/mod.rs): the request
  // came from http://origin/, the envelope says http://localhost/: "origin header mismatch".
  const MISMATCH = 'invalid event envelope: origin header mismatch between envelope and request';
  it.each([
    { name: 'no origin in the envelope', origin: undefined, request: {}, expected: undefined },
    { name: 'a null origin', origin: null, request: {}, expected: undefined },
    {
      name: 'the request’s own Origin, as a URL',
      origin: 'http://origin/',
      request: { origin: 'http://origin' },
      expected: undefined,
    },
    {
      name: 'another origin than the request’s (Relay’s test)',
      origin: 'http://localhost/',
      request: { origin: 'http://origin' },
      expected: MISMATCH,
    },
    {
      name: 'an origin when the request has none',
      origin: 'http://localhost/',
      request: {},
      expected: MISMATCH,
    },
    {
      name: 'the Referer when there is no Origin',
      origin: 'http://localhost:3000/errors',
      request: { referer: 'http://localhost:3000/errors' },
      expected: undefined,
    },
    {
      name: 'an Origin that is not http(s), so the Referer counts',
      origin: 'http://localhost:3000/',
      request: { origin: 'null', referer: 'http://localhost:3000/' },
      expected: undefined,
    },
    {
      name: 'an origin that is not a URL',
      origin: 'not a url',
      request: { origin: 'http://origin' },
      expected: 'invalid event envelope: invalid envelope header',
    },
    {
      name: 'an origin that is not a string',
      origin: 42,
      request: { origin: 'http://origin' },
      expected: 'invalid event envelope: invalid envelope header',
    },
  ])('$name', ({ origin, request, expected }) => {
    expect(envelopeOriginProblem(origin, request)).toBe(expected);
  });
});

describe('readEnvelope rejects what Relay answers 413 (its per-type limits)', () => {
  const SPAN_CONTAINER =
    '{"type":"span","content_type":"application/vnd.sentry.items.span.v2+json","item_count":1}';
  const big = (bytes: number) => `{"x":"${'x'.repeat(bytes)}"}`;

  it.each([
    { name: 'two events', bytes: `{}\n${many(2, '{"type":"event"}')}`, type: 'event' },
    {
      name: 'an event and a transaction',
      bytes: '{}\n{"type":"event"}\n{}\n{"type":"transaction"}\n{}\n',
      type: 'transaction',
    },
    {
      name: 'an event and a security report',
      bytes: '{}\n{"type":"event"}\n{}\n{"type":"security"}\n{}\n',
      type: 'security',
    },
    {
      name: 'an event over 1 MiB',
      bytes: `{}\n{"type":"event"}\n${big(1024 * 1024)}\n`,
      type: 'event',
    },
    {
      name: '101 session updates',
      bytes: `{}\n${many(101, '{"type":"session"}')}`,
      type: 'session',
    },
    {
      name: '31 attachments',
      bytes: `{}\n${many(31, '{"type":"attachment","length":1}', 'a')}`,
      type: 'attachment',
    },
    { name: '26 standalone spans', bytes: `{}\n${many(26, '{"type":"span"}')}`, type: 'span' },
    {
      name: 'two span containers',
      bytes: `{}\n${many(2, SPAN_CONTAINER, '{"items":[]}')}`,
      type: 'span',
    },
    {
      name: 'two replay recordings',
      bytes: `{}\n${many(2, '{"type":"replay_recording","length":1}', 'r')}`,
      type: 'replay_recording',
    },
    {
      name: 'a client report over 100 KiB',
      bytes: `{}\n{"type":"client_report"}\n${big(100 * 1024)}\n`,
      type: 'client_report',
    },
    {
      name: 'a check-in over 100 KiB',
      bytes: `{}\n{"type":"check_in"}\n${big(100 * 1024)}\n`,
      type: 'check_in',
    },
  ])('$name', ({ bytes, type }) => {
    expect(rejected(text(bytes))).toEqual(overflow(type));
  });

  it('caps items of types Relay does not limit at what its limits allow in all', () => {
    const inAll = Object.values(ENVELOPE_LIMITS).reduce((sum, limit) => sum + limit.count, 0);
    const most = text(`{}\n${many(inAll, '{"type":"unknown_kind"}')}`);
    expect(accepted(most).items).toHaveLength(inAll);
    expect(rejected(text(`{}\n${many(inAll + 1, '{"type":"unknown_kind"}')}`))).toEqual({
      status: 413,
      reason: `envelope exceeded size limits for type 'unknown_kind': more than ${inAll} items`,
    });
  });

  it.each([
    { kind: 'event', header: '{"type":"event"}' },
    { kind: 'unknown', header: '{"type":"x"}' },
  ])(
    'stops at the limit, never reading 14,240 tiny $kind items (about 977 KiB) to the end',
    ({ header }) => {
      // Framing broken at the very end: had the reader gone on, it would answer 400, not 413.
      const bytes = text(`{}\n${many(14_240, header, `{"a":"${'x'.repeat(48)}"}`)}{"type":`);
      expect(bytes.length).toBeGreaterThan(950_000);
      expect(rejected(bytes).status).toBe(413);
    },
  );
});

describe('readEnvelope accepts what Relay accepts', () => {
  const browserSession = sessionEnvelope(
    { sid: 'a'.repeat(32), started: 1_763_776_800, status: 'ok', errors: 0 },
    {
      dsn: 'http://public@localhost:3000/1',
      environment: 'production',
      release: 'app@1.0.0',
      userAgent: 'test',
      sentAt: new Date(1_763_776_801_000),
      sdk: SDK_METADATA,
    },
  );
  const python = ['type1', 'type2', 'type3', 'type4'];

  it.each([
    {
      name: "Relay's header-only envelope (200 there)",
      bytes: relayEnvelopes.headerOnly,
      types: [],
    },
    { name: 'a header-only envelope ending in a newline', bytes: text('{}\n'), types: [] },
    {
      name: "Relay's empty sized items",
      bytes: relayEnvelopes.emptyItems,
      types: ['attachment', 'attachment'],
    },
    {
      name: "Relay's unsized item at the end",
      bytes: relayEnvelopes.implicitLengthEof,
      types: ['attachment'],
    },
    {
      name: "Relay's attachment and event",
      bytes: relayEnvelopes.multipleItems,
      types: ['attachment', 'event'],
    },
    { name: "Relay's unknown item", bytes: relayEnvelopes.unknownItem, types: ['invalid_unknown'] },
    { name: "sentry-python's sized items", bytes: pythonEnvelopes.sizedItems, types: python },
    {
      name: "sentry-python's sized items without the last newline",
      bytes: pythonEnvelopes.sizedItems.subarray(0, -1),
      types: python,
    },
    { name: "sentry-python's unsized items", bytes: pythonEnvelopes.implicitItems, types: python },
    {
      name: "sentry-python's envelope without headers",
      bytes: pythonEnvelopes.withoutHeaders,
      types: ['session'],
    },
    { name: "sentry-java's session", bytes: javaEnvelopes.session, types: ['session'] },
    { name: "sentry-java's Flutter event", bytes: javaEnvelopes.flutterEvent, types: ['event'] },
    { name: 'a Python logging event', bytes: sdkEventEnvelope(pythonLogEvent), types: ['event'] },
    {
      name: 'a Java event with threads',
      bytes: sdkEventEnvelope(javaThreadEvent),
      types: ['event'],
    },
    {
      name: 'a header written over several lines',
      bytes: text(`{\n  "event_id": "${ID}"\n}\n{"type":"event"}\n{}\n`),
      types: ['event'],
    },
    { name: "the browser's early session", bytes: text(browserSession), types: ['session'] },
    {
      // Keys Relay does not read into a field land in its `other` map, where the last one wins.
      name: 'an unknown header key given twice',
      bytes: text('{"x_custom":1,"x_custom":2}\n{"type":"event","x":1,"x":2}\n{}\n'),
      types: ['event'],
    },
    {
      name: 'an item length of 41, as Relay’s own test sends it',
      bytes: text('{}\n{"type":"event","length":41}\n{"message":"hello world","level":"error"}\n'),
      types: ['event'],
    },
  ])('$name', ({ bytes, types }) => {
    expect(accepted(bytes).items.map((item) => item.header.type)).toEqual(types);
  });

  it('gives the header event id as 32 lower-case hex digits, whatever UUID form it came in', () => {
    for (const form of [
      '9EC79C33EC9942AB8353589FCB2E04DC',
      '9ec79c33-ec99-42ab-8353-589fcb2e04dc',
      '{9EC79C33-EC99-42AB-8353-589FCB2E04DC}',
      'urn:uuid:9ec79c33-ec99-42ab-8353-589fcb2e04dc',
    ]) {
      expect(accepted(text(`{"event_id":"${form}"}\n`)).eventId).toBe(ID);
    }
    expect(accepted(text('{"event_id":null}\n')).eventId).toBeUndefined();
  });

  it('reads sent_at in any zone form', () => {
    const envelope = accepted(text('{"sent_at":"2020-02-07T15:16:00.5+0100"}\n'));
    expect(envelope.sentAt).toBe(Date.parse('2020-02-07T14:16:00.500Z'));
  });

  it("reads the JavaScript SDK's event and client report envelopes", () => {
    const event = createEventEnvelope(
      { event_id: ID, exception: { values: [{ type: 'Error', value: 'boom' }] } },
      dsn,
      undefined,
      '/monitoring',
    );
    expect(accepted(serialized(event)).eventId).toBe(ID);
    const report = createClientReportEnvelope(
      [{ reason: 'queue_overflow', category: 'error', quantity: 2 }],
      'http://public@localhost:3000/1',
      1_763_776_800,
    );
    expect(accepted(serialized(report)).items[0]?.header.type).toBe('client_report');
  });

  it('passes binary attachment and replay payloads byte for byte', () => {
    const binary = Uint8Array.from([0x00, 0x0a, 0xff, 0xfe, 0x0a, 0x0a, 0x80, 0x01, 0x0d, 0x0a]);
    const event = addItemToEnvelope(
      createEventEnvelope({ event_id: ID }, dsn),
      createAttachmentEnvelopeItem({ filename: 'dump.bin', data: binary }),
    );
    const withAttachment = accepted(serialized(event));
    expect(Buffer.from(withAttachment.items[1]?.payload ?? [])).toEqual(Buffer.from(binary));
    const recording = concat('{"segment_id":0}\n', binary);
    const replay = concat(
      `{"event_id":"${ID}"}\n{"type":"replay_event"}\n{"replay_id":"${ID}"}\n`,
      `{"type":"replay_recording","length":${recording.length}}\n`,
      recording,
      '\n',
    );
    expect(Buffer.from(accepted(replay).items[1]?.payload ?? [])).toEqual(recording);
  });
});
