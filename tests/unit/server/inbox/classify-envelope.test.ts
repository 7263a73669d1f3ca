import { createEventEnvelope, makeDsn, serializeEnvelope } from '@sentry/core';
import { describe, expect, it } from 'vitest';
import { SDK_METADATA } from '#app/monitoring/recorder/recorder';
import { sessionEnvelope } from '#app/monitoring/start-browser-monitoring';
import { classifyEnvelope } from '#app/server/inbox/classify-envelope';
import { readEnvelope } from '#app/server/inbox/envelope';
import {
  javaEnvelopes,
  pythonLogEvent,
  relayEnvelopes,
  sdkEventEnvelope,
} from '#tests/fixtures/real-envelopes';

const encoder = new TextEncoder();
const text = (value: string) => encoder.encode(value);
const ID = '9ec79c33ec9942ab8353589fcb2e04dc';
const NOW = new Date('2025-11-22T02:00:01.000Z');

function classify(bytes: Uint8Array | string, receivedAt = NOW) {
  const read = readEnvelope(typeof bytes === 'string' ? text(bytes) : bytes);
  if (!read.ok) throw new Error(read.reason);
  return classifyEnvelope(read.envelope, { receivedAt, newEventId: () => 'f'.repeat(32) });
}

const counts = (record: Record<string, number>) => ({ ...record });
const session = (payload: Record<string, unknown>) =>
  `{}\n{"type":"session"}\n${JSON.stringify(payload)}\n`;
const attrs = { release: 'app@1.0.0', environment: 'production' };

describe('classifyEnvelope: the error event', () => {
  it("keeps the browser SDK's event under the envelope's id, normalised", () => {
    const envelope = createEventEnvelope(
      {
        event_id: ID.toUpperCase(),
        timestamp: NOW.getTime() / 1000 - 1,
        exception: { values: [{ type: 'TypeError', value: 'x is undefined' }] },
      },
      makeDsn('http://public@localhost:3000/1'),
      undefined,
      '/monitoring',
    );
    const contents = classify(serializeEnvelope(envelope) as string);
    expect(contents.event).toMatchObject({ event_id: ID, level: 'error', received: 1_763_776_801 });
    expect(counts(contents.counts)).toEqual({ event: 1 });
    expect(contents.dropped).toEqual([]);
  });

  it('gives an event whose envelope has no id a new one, as Relay does', () => {
    expect(classify('{}\n{"type":"event"}\n{"event_id":"a/b?c#d"}\n').event?.event_id).toBe(
      'f'.repeat(32),
    );
  });

  it('formats a Python logging event', () => {
    const contents = classify(sdkEventEnvelope(pythonLogEvent));
    expect(contents.event?.logentry).toMatchObject({
      formatted: 'User alice failed to pay 3 times',
    });
  });

  it("reads Relay's and Flutter's events (a legacy message, an attachment beside)", () => {
    const relay = classify(relayEnvelopes.multipleItems);
    expect(relay.event?.logentry).toEqual({ formatted: 'hello world' });
    expect(counts(relay.counts)).toEqual({ attachment: 1, event: 1 });
    const flutter = classify(javaEnvelopes.flutterEvent, new Date('2020-12-16T11:45:00Z'));
    expect(flutter.event?.event_id).toBe('15867108892a49a4bcbe585de3706343');
    expect(flutter.event?.logentry).toMatchObject({
      formatted: expect.stringMatching(/^==\| EXCEPTION CAUGHT BY RENDERING LIBRARY/),
    });
  });

  it.each([
    { name: 'not JSON', payload: 'not json' },
    { name: 'a JSON array', payload: '[1,2]' },
    { name: 'a JSON string', payload: '"event"' },
  ])('drops an event payload that is $name, as Relay does after answering 200', ({ payload }) => {
    const contents = classify(`{"event_id":"${ID}"}\n{"type":"event"}\n${payload}\n`);
    expect(contents.event).toBeUndefined();
    expect(counts(contents.counts)).toEqual({ event: 1 });
    expect(contents.dropped).toEqual([
      { type: 'event', reason: 'invalid_json: the payload is not a JSON object' },
    ]);
  });

  it('only counts spans, transactions, client reports, attachments and unknown items', () => {
    const contents = classify(
      [
        '{}',
        '{"type":"transaction"}',
        '{"type":"transaction"}',
        '{"type":"span"}',
        '{}',
        '{"type":"client_report"}',
        '{"discarded_events":[]}',
        '{"type":"attachment","length":1}',
        'a',
        // A well-formed name Relay does not know: one bucket for all of them (issue 32's type bomb).
        '{"type":"qwertyuiopasdfghjklzxcvbnmqw","length":0}',
        '',
        '{"type":"Weird Type"}',
        '{}',
        '',
      ].join('\n'),
    );
    expect(contents.event).toBeUndefined();
    expect(contents.sessionUpdates).toEqual([]);
    expect(counts(contents.counts)).toEqual({
      transaction: 1,
      span: 1,
      client_report: 1,
      attachment: 1,
      other: 2,
    });
  });
});

describe('classifyEnvelope: session updates', () => {
  it("reads the browser's session update", () => {
    const started = NOW.getTime() / 1000 - 30;
    const bytes = sessionEnvelope(
      { sid: 'A'.repeat(32), started, status: 'ok', errors: 0 },
      {
        dsn: 'http://public@localhost:3000/1',
        environment: 'production',
        release: 'app@1.0.0',
        userAgent: 'test',
        sentAt: NOW,
        sdk: SDK_METADATA,
      },
    );
    expect(classify(bytes).sessionUpdates).toEqual([
      {
        kind: 'session',
        release: 'app@1.0.0',
        environment: 'production',
        sessionId: 'a'.repeat(32),
        init: true,
        status: 'ok',
        errors: 0,
        started: started * 1000,
        timestamp: NOW.getTime(),
      },
    ]);
  });

  it("reads sentry-java's session update, and drops it when older than 5 days", () => {
    const receivedAt = new Date('2020-02-07T14:20:00Z');
    expect(classify(javaEnvelopes.session, receivedAt).sessionUpdates).toEqual([
      {
        kind: 'session',
        release: 'io.sentry@1.0+123',
        environment: 'debug',
        sessionId: 'c81d4e2ebcf211e6869b7df92533d2db',
        distinctId: '123',
        init: true,
        status: 'ok',
        errors: 2,
        started: Date.parse('2020-02-07T14:16:00Z'),
        timestamp: Date.parse('2020-02-07T14:16:00Z'),
      },
    ]);
    const late = classify(javaEnvelopes.session);
    expect(late.sessionUpdates).toEqual([]);
    expect(late.dropped).toEqual([
      { type: 'session', reason: 'invalid session: times out of range' },
    ]);
  });

  it('reads pre-aggregated sessions, keeping only buckets within the last 5 days', () => {
    const payload = {
      aggregates: [
        { started: '2025-11-22T01:00:00Z', exited: 5, errored: 1, did: 'user-1' },
        { started: '2025-11-22T02:00:00Z', crashed: 2, unhandled: 3 },
        { started: '2025-11-01T00:00:00Z', exited: 9 },
      ],
      attrs,
    };
    const contents = classify(`{}\n{"type":"sessions"}\n${JSON.stringify(payload)}\n`);
    expect(contents.sessionUpdates).toEqual([
      {
        kind: 'aggregate',
        ...attrs,
        distinctId: 'user-1',
        started: Date.parse('2025-11-22T01:00:00Z'),
        exited: 5,
        errored: 1,
        abnormal: 0,
        unhandled: 0,
        crashed: 0,
      },
      {
        kind: 'aggregate',
        ...attrs,
        started: Date.parse('2025-11-22T02:00:00Z'),
        exited: 0,
        errored: 0,
        abnormal: 0,
        unhandled: 3,
        crashed: 2,
      },
    ]);
  });

  const started = '2025-11-22T01:59:00Z';

  it.each([
    { name: 'no started time', payload: { attrs }, reason: 'started' },
    { name: 'no release', payload: { started, attrs: {} }, reason: 'release' },
    {
      name: 'the release "latest"',
      payload: { started, attrs: { release: 'latest' } },
      reason: 'release',
    },
    {
      name: 'a release with a slash',
      payload: { started, attrs: { release: 'a/b' } },
      reason: 'release',
    },
    { name: 'an unknown status', payload: { started, attrs, status: 'weird' }, reason: 'status' },
    { name: 'negative errors', payload: { started, attrs, errors: -1 }, reason: 'errors' },
    { name: 'a sid that is not a UUID', payload: { started, attrs, sid: 'x' }, reason: 'sid' },
    {
      name: 'a start more than 60 s ahead',
      payload: { started: '2025-11-22T02:01:02Z', attrs },
      reason: 'times out of range',
    },
  ])('drops an update with $name, as Relay does', ({ payload, reason }) => {
    const contents = classify(session(payload));
    expect(contents.sessionUpdates).toEqual([]);
    expect(contents.dropped).toEqual([{ type: 'session', reason: `invalid session: ${reason}` }]);
  });

  it('drops only an invalid environment, moves a timestamp before the start to the start', () => {
    const [update] = classify(
      session({
        sid: ID,
        started,
        timestamp: '2025-11-22T01:00:00Z',
        status: 'crashed',
        attrs: { release: 'app@1.0.0', environment: 'a/b' },
      }),
    ).sessionUpdates;
    expect(update).toMatchObject({
      release: 'app@1.0.0',
      status: 'crashed',
      started: Date.parse(started),
      timestamp: Date.parse(started),
    });
    expect(update).not.toHaveProperty('environment');
  });
});
