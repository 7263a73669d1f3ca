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
import { prepareEnvelope } from '#app/server/inbox/store/prepare-envelope';

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
          frames: [{ filename: '/app/about.tsx', function: 'onClick', lineno: 7, in_app: true }],
        },
      },
    ],
  },
  breadcrumbs: [{ category: 'navigation', data: { from: '/', to: '/sentry-example-page' } }],
};

/** When these envelopes arrive: the event's own time, so it is not judged too old. */
const RECEIVED = 1_763_776_900_000;

async function prepared(bytes: Uint8Array) {
  const result = await prepareEnvelope(bytes, RECEIVED);
  if (!result.ok) throw new Error(`refused: ${result.reason}`);
  return result.prepared;
}

describe('envelopes made by the Sentry SDK', () => {
  it('reads an event envelope sent through a tunnel', async () => {
    const envelope = createEventEnvelope(structuredClone(event), dsn, undefined, '/monitoring');
    const { event: stored, counts } = await prepared(toBytes(serializeEnvelope(envelope)));
    expect(counts).toEqual({ event: 1 });
    expect(stored).toMatchObject({
      eventId: '9'.repeat(32),
      timestamp: 1_763_776_800_000,
      level: 'error',
      title: 'Error: Sentry example client error ✓',
      url: 'http://localhost:3000/sentry-example-page',
      environment: 'development',
      release: 'app@0.1.0',
    });
    expect(stored?.tags).toContainEqual(['digest', 'srv-1234']);
  });

  it('reads the event of an envelope that carries a binary attachment after it', async () => {
    const binary = Uint8Array.from([0, 10, 255, 10, 13, 128]);
    const envelope = addItemToEnvelope(
      createEventEnvelope(structuredClone(event), dsn),
      createAttachmentEnvelopeItem({ filename: 'dump.bin', data: binary }),
    );
    const { event: stored, counts } = await prepared(toBytes(serializeEnvelope(envelope)));
    expect(counts).toEqual({ event: 1, attachment: 1 });
    const payload = JSON.parse(stored?.payload ?? '{}');
    expect(payload.exception.values[0].stacktrace.frames).toEqual([
      { filename: '/app/about.tsx', function: 'onClick', lineno: 7, in_app: true },
    ]);
    expect(payload.breadcrumbs[0]).toMatchObject({
      category: 'navigation',
      data: { from: '/', to: '/sentry-example-page' },
    });
  });

  it('counts a client report without storing an event', async () => {
    const envelope = createClientReportEnvelope(
      [{ reason: 'sample_rate', category: 'error', quantity: 1 }],
      undefined,
    );
    const { event: stored, counts } = await prepared(toBytes(serializeEnvelope(envelope)));
    expect(stored).toBeUndefined();
    expect(counts).toEqual({ client_report: 1 });
  });
});
