/**
 * Envelopes serialised by Sentry's own SDK code (@sentry/core 11.12), so the inbox reads
 * what the browser and server SDKs really send, not just what the hand-built fixtures say.
 */
import {
  addItemToEnvelope,
  createAttachmentEnvelopeItem,
  createClientReportEnvelope,
  createEventEnvelope,
  type Event,
  makeDsn,
  serializeEnvelope,
} from '@sentry/core';
import { describe, expect, it } from 'vitest';
import { envelopeEventDetail, summarizeEnvelope } from '#app/server/inbox/envelope-summary';

const dsn = makeDsn('http://public@localhost:3000/1');
const toBytes = (serialized: string | Uint8Array) =>
  typeof serialized === 'string' ? new TextEncoder().encode(serialized) : serialized;

const event: Event = {
  event_id: '9'.repeat(32),
  timestamp: 1_763_776_800,
  level: 'error',
  environment: 'development',
  release: 'app@0.1.0',
  request: { url: 'http://localhost:3000/sentry-example-page' },
  tags: { digest: 'srv-1234' },
  exception: {
    values: [
      {
        type: 'Error',
        value: 'Sentry example client error ✓',
        stacktrace: {
          frames: [{ filename: '/app/page.tsx', function: 'onClick', lineno: 7, in_app: true }],
        },
      },
    ],
  },
  breadcrumbs: [{ category: 'navigation', data: { from: '/', to: '/sentry-example-page' } }],
};

describe('envelopes made by the Sentry SDK', () => {
  it('reads an event envelope sent through a tunnel', () => {
    const envelope = createEventEnvelope(structuredClone(event), dsn, undefined, '/monitoring');
    const bytes = toBytes(serializeEnvelope(envelope));
    expect(summarizeEnvelope(bytes, 'id')).toEqual({
      itemCounts: { event: 1 },
      event: {
        eventId: '9'.repeat(32),
        timestamp: '2025-11-22T02:00:00.000Z',
        level: 'error',
        type: 'Error',
        message: 'Sentry example client error ✓',
        url: 'http://localhost:3000/sentry-example-page',
        environment: 'development',
        release: 'app@0.1.0',
        digest: 'srv-1234',
      },
    });
  });

  it('reads the event of an envelope that carries a binary attachment after it', () => {
    const binary = Uint8Array.from([0, 10, 255, 10, 13, 128]);
    const envelope = addItemToEnvelope(
      createEventEnvelope(structuredClone(event), dsn),
      createAttachmentEnvelopeItem({ filename: 'dump.bin', data: binary }),
    );
    const bytes = toBytes(serializeEnvelope(envelope));
    expect(summarizeEnvelope(bytes, 'id').itemCounts).toEqual({ event: 1, attachment: 1 });
    const detail = envelopeEventDetail(bytes, 'id');
    expect(detail?.exceptions[0]?.frames).toEqual([
      { filename: '/app/page.tsx', function: 'onClick', lineno: 7, inApp: true },
    ]);
    expect(detail?.breadcrumbs).toEqual([
      { category: 'navigation', data: '{"from":"/","to":"/sentry-example-page"}' },
    ]);
  });

  it('counts a client report without listing it', () => {
    const envelope = createClientReportEnvelope(
      [{ reason: 'sample_rate', category: 'error', quantity: 1 }],
      undefined,
    );
    const summary = summarizeEnvelope(toBytes(serializeEnvelope(envelope)), 'id');
    expect(summary).toEqual({ itemCounts: { client_report: 1 } });
  });
});
