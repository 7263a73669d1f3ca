import { describe, expect, it } from 'vitest';
import { payloadJson, splitEnvelope } from '#app/server/inbox/envelope';
import { envelopeEventDetail } from '#app/server/inbox/envelope-summary';
import { normaliseEnvelope } from '#app/server/inbox/normalise-envelope';
import { envelopeBytes, errorEnvelope, sessionEnvelope } from '#tests/fixtures/inbox-envelopes';

const binary = Uint8Array.from([0x00, 0x0a, 0xff, 0xfe, 0x0a, 0x0a, 0x80, 0x01]);
const text = (value: string) => new TextEncoder().encode(value);

function hostileEvent(): Record<string, unknown> {
  return {
    event_id: 'f'.repeat(32),
    exception: {
      values: [
        {
          type: 'Error',
          value: 'x'.repeat(20_000),
          stacktrace: { frames: Array.from({ length: 10_000 }, () => ({})) },
        },
      ],
    },
    breadcrumbs: Array.from({ length: 1000 }, (_, n) => ({ message: `crumb ${n}` })),
  };
}

describe('normaliseEnvelope', () => {
  it.each([
    { name: 'an ordinary error envelope', bytes: errorEnvelope() },
    { name: 'a session envelope', bytes: sessionEnvelope() },
    { name: 'an envelope that is not one', bytes: text('not json\n\x00\x01') },
  ])('returns $name as the very bytes given', ({ bytes }) => {
    expect(normaliseEnvelope(bytes)).toBe(bytes);
  });

  it('bounds the event and keeps every other item byte for byte, lengths right', () => {
    const bytes = envelopeBytes({ event_id: 'f'.repeat(32), sdk: { name: 'test' } }, [
      { header: { type: 'attachment', filename: 'blob.bin' }, payload: binary, sized: true },
      { header: { type: 'event' }, payload: hostileEvent() },
      { header: { type: 'client_report' }, payload: { discarded_events: [] } },
    ]);
    const stored = normaliseEnvelope(bytes);
    // 8,192 characters of value, 50 empty frames, 100 short crumbs.
    expect(stored.length).toBeLessThan(12_000);
    expect(bytes.length).toBeGreaterThan(70_000);
    const envelope = splitEnvelope(stored);
    expect(envelope.problem).toBeUndefined();
    expect(envelope.header).toEqual({ event_id: 'f'.repeat(32), sdk: { name: 'test' } });
    expect(envelope.items.map((item) => item.header.type)).toEqual([
      'attachment',
      'event',
      'client_report',
    ]);
    expect(Array.from(envelope.items[0]?.payload ?? [])).toEqual(Array.from(binary));
    const event = envelope.items[1];
    expect(event?.header.length).toBe(event?.payload.length);
    expect(payloadJson(envelope.items[2] ?? { header: {}, payload: binary })).toEqual({
      discarded_events: [],
    });
    const detail = envelopeEventDetail(stored, 'fallback');
    expect(detail?.exceptions[0]?.frames).toHaveLength(50);
    expect(detail?.breadcrumbs).toHaveLength(100);
  });

  it('fixes a length header that the cut made wrong', () => {
    const bytes = envelopeBytes({}, [
      { header: { type: 'event' }, payload: hostileEvent(), sized: true },
    ]);
    const envelope = splitEnvelope(normaliseEnvelope(bytes));
    expect(envelope.problem).toBeUndefined();
    expect(envelope.items[0]?.header.length).toBe(envelope.items[0]?.payload.length);
  });

  it('keeps the unreadable rest of a damaged envelope as it came', () => {
    const good = envelopeBytes({}, [{ header: { type: 'event' }, payload: hostileEvent() }]);
    const tail = text('{"type":"attachment","length":999}\nshort');
    const bytes = Buffer.concat([good, tail]);
    const stored = normaliseEnvelope(bytes);
    expect(Buffer.from(stored.subarray(stored.length - tail.length)).equals(tail)).toBe(true);
    expect(splitEnvelope(stored).problem).toBe('item 2: unexpected end of file');
  });

  it('copes with an event whose breadcrumb is nested 100,000 deep', () => {
    const depth = 100_000;
    const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const payload = `{"event_id":"${'d'.repeat(32)}","breadcrumbs":[{"message":"deep","data":${deep}}]}`;
    const bytes = text(`{}\n{"type":"event"}\n${payload}\n`);
    const stored = normaliseEnvelope(bytes);
    const detail = envelopeEventDetail(stored, 'fallback');
    // Relay's "medium" bag: four levels, then the rest as JSON text cut to what is left.
    expect(detail?.breadcrumbs[0]?.data).toMatch(
      /^\{"a":\{"a":\{"a":\{"a":"\{\\"a\\":.*\.\.\."\}\}\}\}$/,
    );
  });
});
