/** Reading what the fake ingest received: envelopes, error events, span segments. */
import type { ReceivedRequest } from '#tests/fixtures/fake-sentry';

export interface EnvelopeItem {
  header: { type?: string; [key: string]: unknown };
  payload: unknown;
}

export interface ParsedEnvelope {
  header: Record<string, unknown>;
  items: EnvelopeItem[];
}

/** Parses a JSON-only envelope (events, sessions, spans, client reports). */
export function parseEnvelope(body: Buffer): ParsedEnvelope {
  const lines = body.toString('utf8').split('\n').filter(Boolean);
  const header = JSON.parse(lines[0] ?? '{}');
  const items: EnvelopeItem[] = [];
  for (let index = 1; index + 1 < lines.length + 1; index += 2) {
    const itemHeader = JSON.parse(lines[index] ?? '{}');
    const payloadLine = lines[index + 1];
    items.push({ header: itemHeader, payload: payloadLine ? JSON.parse(payloadLine) : undefined });
  }
  return { header, items };
}

export interface ErrorEventSummary {
  /** The event's id: the same id twice is one report sent twice. */
  eventId?: string;
  message: string;
  type?: string;
  frames: Array<{ filename?: string; function?: string; lineno?: number }>;
  /** Seconds since the epoch: when it happened. */
  timestamp?: number;
  /** The mechanism's type: which handler caught it. */
  mechanism?: string;
}

/** Every error event the ingest received, in order of arrival. */
export function errorEvents(received: ReceivedRequest[]): ErrorEventSummary[] {
  const events: ErrorEventSummary[] = [];
  for (const request of received) {
    for (const item of parseEnvelope(request.body).items) {
      if (item.header.type !== 'event') continue;
      const event = item.payload as {
        event_id?: string;
        message?: string;
        timestamp?: number;
        exception?: {
          values?: Array<{
            type?: string;
            value?: string;
            stacktrace?: { frames?: [] };
            mechanism?: { type?: string };
          }>;
        };
      };
      const exception = event.exception?.values?.at(-1);
      events.push({
        eventId: event.event_id,
        message: exception?.value ?? event.message ?? '',
        type: exception?.type,
        frames: exception?.stacktrace?.frames ?? [],
        timestamp: event.timestamp,
        mechanism: exception?.mechanism?.type,
      });
    }
  }
  return events;
}

/** The messages of the error events received so far. */
export function errorMessages(received: ReceivedRequest[]): string[] {
  return errorEvents(received).map((event) => event.message);
}

export interface SegmentSpan {
  name: string;
  isSegment: boolean;
  /** Seconds since the epoch. */
  startTimestamp: number;
  attributes: Record<string, unknown>;
}

/** Every streamed span the ingest received. */
export function spans(received: ReceivedRequest[]): SegmentSpan[] {
  const all: SegmentSpan[] = [];
  for (const request of received) {
    for (const item of parseEnvelope(request.body).items) {
      if (item.header.type !== 'span') continue;
      const container = item.payload as {
        items: Array<{
          name: string;
          is_segment: boolean;
          start_timestamp: number;
          attributes: Record<string, { value: unknown }>;
        }>;
      };
      for (const span of container.items) {
        const attributes: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(span.attributes ?? {}))
          attributes[key] = value?.value;
        all.push({
          name: span.name,
          isSegment: span.is_segment,
          startTimestamp: span.start_timestamp,
          attributes,
        });
      }
    }
  }
  return all;
}

export interface SessionUpdate {
  sid: string;
  init: boolean;
  status: string;
  errors: number;
  attrs: Record<string, unknown>;
}

/** Every release-health session update the ingest received, in order of arrival. */
export function sessionUpdates(received: ReceivedRequest[]): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const request of received) {
    for (const item of parseEnvelope(request.body).items) {
      if (item.header.type === 'session') updates.push(item.payload as SessionUpdate);
    }
  }
  return updates;
}
