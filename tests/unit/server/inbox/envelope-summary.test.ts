import { describe, expect, it } from 'vitest';
import { envelopeEventDetail, summarizeEnvelope } from '#app/server/inbox/envelope-summary';
import {
  envelopeBytes,
  errorEnvelope,
  errorEvent,
  sessionEnvelope,
} from '#tests/fixtures/inbox-envelopes';

describe('summarizeEnvelope', () => {
  it('extracts what the list shows from an error event', () => {
    const summary = summarizeEnvelope(
      errorEnvelope({
        eventId: '0123456789abcdef0123456789abcdef',
        type: 'TypeError',
        message: 'x is not a function',
        url: 'http://localhost:3000/page',
        environment: 'staging',
        release: 'app@2',
        digest: 'd1g3st',
        timestamp: 1_700_000_000,
      }),
      'fallback',
    );
    expect(summary).toEqual({
      itemCounts: { event: 1 },
      event: {
        eventId: '0123456789abcdef0123456789abcdef',
        timestamp: '2023-11-14T22:13:20.000Z',
        level: 'error',
        type: 'TypeError',
        message: 'x is not a function',
        url: 'http://localhost:3000/page',
        environment: 'staging',
        release: 'app@2',
        digest: 'd1g3st',
      },
    });
  });

  it.each([
    {
      name: 'a session',
      bytes: sessionEnvelope(),
      counts: { session: 1 },
    },
    {
      name: 'a client report and spans',
      bytes: envelopeBytes({}, [
        { header: { type: 'client_report' }, payload: { discarded_events: [] } },
        { header: { type: 'span' }, payload: { items: [] } },
        { header: { type: 'span' }, payload: { items: [] } },
      ]),
      counts: { client_report: 1, span: 2 },
    },
    {
      name: 'a transaction',
      bytes: envelopeBytes({}, [
        { header: { type: 'transaction' }, payload: { type: 'transaction' } },
      ]),
      counts: { transaction: 1 },
    },
  ])('counts $name without listing an event', ({ bytes, counts }) => {
    const summary = summarizeEnvelope(bytes, 'id');
    expect(summary.itemCounts).toEqual(counts);
    expect(summary.event).toBeUndefined();
  });

  it.each([
    {
      name: 'a string message',
      event: { message: 'plain message', level: 'warning' },
      expected: { type: '', message: 'plain message', level: 'warning' },
    },
    {
      name: 'a formatted message object',
      event: { message: { formatted: 'formatted text' } },
      expected: { type: '', message: 'formatted text', level: 'error' },
    },
    {
      name: 'a logentry',
      event: { logentry: { message: 'from logentry' }, level: 'info' },
      expected: { type: '', message: 'from logentry', level: 'info' },
    },
    {
      name: 'chained exceptions (the last one was thrown)',
      event: {
        exception: {
          values: [
            { type: 'CauseError', value: 'the cause' },
            { type: 'OuterError', value: 'the outer error' },
          ],
        },
      },
      expected: { type: 'OuterError', message: 'the outer error', level: 'error' },
    },
    {
      name: 'tags as a list of pairs',
      event: { message: 'm', tags: [['digest', 'abc123']] },
      expected: { type: '', message: 'm', level: 'error', digest: 'abc123' },
    },
  ])('reads $name', ({ event, expected }) => {
    const bytes = envelopeBytes({ event_id: 'f'.repeat(32) }, [
      { header: { type: 'event' }, payload: event },
    ]);
    expect(summarizeEnvelope(bytes, 'id').event).toEqual({ eventId: 'f'.repeat(32), ...expected });
  });

  it('lists the event of an envelope that also carries a binary attachment', () => {
    const bytes = envelopeBytes({ event_id: 'c'.repeat(32) }, [
      { header: { type: 'event' }, payload: errorEvent({ eventId: 'c'.repeat(32) }) },
      {
        header: { type: 'attachment', filename: 'shot.png' },
        payload: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0a, 0x00, 0xff]),
        sized: true,
      },
    ]);
    const summary = summarizeEnvelope(bytes, 'id');
    expect(summary.itemCounts).toEqual({ event: 1, attachment: 1 });
    expect(summary.event?.eventId).toBe('c'.repeat(32));
  });

  it('falls back to the envelope header id, then to the given id', () => {
    const fromHeader = envelopeBytes({ event_id: 'h'.repeat(32) }, [
      { header: { type: 'event' }, payload: { message: 'm' } },
    ]);
    const withoutIds = envelopeBytes({}, [
      { header: { type: 'event' }, payload: { message: 'm' } },
    ]);
    expect(summarizeEnvelope(fromHeader, 'fb').event?.eventId).toBe('h'.repeat(32));
    expect(summarizeEnvelope(withoutIds, 'fb').event?.eventId).toBe('fb');
  });

  it('clips a very long message in the summary but not in the detail', () => {
    const long = 'x'.repeat(5000);
    const bytes = errorEnvelope({ message: long });
    expect(summarizeEnvelope(bytes, 'id').event?.message.length).toBeLessThan(600);
    expect(envelopeEventDetail(bytes, 'id')?.message).toBe(long);
  });

  it('counts item types from hostile envelopes safely', () => {
    const bytes = envelopeBytes({}, [
      { header: { type: 'constructor' }, payload: '{}' },
      { header: { type: '__proto__' }, payload: '{}' },
      { header: { type: 'x'.repeat(5000) }, payload: '{}' },
      { header: { type: 'Event!' }, payload: '{}' },
      { header: { type: 'session' }, payload: '{}' },
    ]);
    const { itemCounts } = summarizeEnvelope(bytes, 'id');
    expect({ ...itemCounts }).toEqual({ constructor: 1, other: 3, session: 1 });
  });

  it('clips label fields an envelope could make huge', () => {
    const huge = 'y'.repeat(100_000);
    const event = {
      ...errorEvent(),
      level: huge,
      environment: huge,
      release: huge,
      tags: { digest: huge },
    };
    const bytes = envelopeBytes({}, [{ header: { type: 'event' }, payload: event }]);
    const summary = summarizeEnvelope(bytes, 'id').event;
    for (const field of ['level', 'environment', 'release', 'digest'] as const) {
      expect(summary?.[field]?.length).toBeLessThan(600);
    }
  });
});

describe('envelopeEventDetail', () => {
  it('gives the stack most recent call first, with in-app frames marked', () => {
    const detail = envelopeEventDetail(errorEnvelope({ message: 'boom' }), 'id');
    expect(detail?.exceptions).toEqual([
      {
        type: 'Error',
        value: 'boom',
        frames: [
          {
            filename: 'http://localhost:3000/_build/assets/example-page.js',
            function: 'handleThrowClick',
            lineno: 42,
            colno: 13,
            inApp: true,
          },
          {
            filename: 'http://localhost:3000/_build/assets/vendor.js',
            function: 'callCallback',
            lineno: 10,
            colno: 5,
            inApp: false,
          },
        ],
      },
    ]);
  });

  it('gives breadcrumbs and tags', () => {
    const detail = envelopeEventDetail(errorEnvelope({ digest: 'dg' }), 'id');
    expect(detail?.breadcrumbs).toEqual([
      {
        timestamp: '2025-11-22T01:59:59.000Z',
        category: 'ui.click',
        message: 'button#throw-client',
      },
      {
        timestamp: '2025-11-22T01:59:59.200Z',
        category: 'console',
        level: 'log',
        message: 'about to throw',
      },
    ]);
    expect(detail?.tags).toEqual([
      ['runtime', 'browser'],
      ['digest', 'dg'],
    ]);
  });

  it('accepts breadcrumbs in the { values } form', () => {
    const bytes = envelopeBytes({}, [
      {
        header: { type: 'event' },
        payload: { message: 'm', breadcrumbs: { values: [{ message: 'crumb', data: { a: 1 } }] } },
      },
    ]);
    expect(envelopeEventDetail(bytes, 'id')?.breadcrumbs).toEqual([
      { message: 'crumb', data: '{"a":1}' },
    ]);
  });

  it('is undefined for an envelope without an event', () => {
    expect(envelopeEventDetail(sessionEnvelope(), 'id')).toBeUndefined();
  });

  it('bounds an entry stored before events were bounded at ingest', () => {
    const frames = Array.from({ length: 349_000 }, () => ({}));
    const crumbs = Array.from({ length: 1000 }, (_, n) => ({ message: `crumb ${n}` }));
    const event = {
      ...errorEvent(),
      exception: { values: [{ type: 'Error', value: 'v', stacktrace: { frames } }] },
      breadcrumbs: crumbs,
    };
    const detail = envelopeEventDetail(
      envelopeBytes({}, [{ header: { type: 'event' }, payload: event }]),
      'id',
    );
    expect(detail?.exceptions[0]?.frames).toHaveLength(50);
    expect(detail?.breadcrumbs).toHaveLength(100);
    expect(detail?.breadcrumbs[99]?.message).toBe('crumb 999');
  });

  it('ignores a tag value that is not text rather than throwing', () => {
    const bytes = envelopeBytes({}, [
      {
        header: { type: 'event' },
        payload: { ...errorEvent(), tags: { digest: { toString: 1 }, ok: 'yes' } },
      },
    ]);
    expect(summarizeEnvelope(bytes, 'id').event?.digest).toBeUndefined();
    expect(envelopeEventDetail(bytes, 'id')?.tags).toEqual([['ok', 'yes']]);
  });
});
