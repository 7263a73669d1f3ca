/**
 * What the envelope-file store (inbox.server.ts, inbox-view.ts) reads of the envelopes it
 * keeps: item counts and the first event's summary. It goes with that store: the pages read
 * stored events from the inbox database (inbox-event.ts). Pure.
 */
import { isRecord } from '#app/server/is-record';
import { countItemType, emptyItemCounts } from './classify-envelope';
import { type Envelope, payloadJson, splitEnvelope } from './envelope';
import { type EventDetail, type EventSummary, eventDetailOf, eventSummaryOf } from './inbox-event';
import { normaliseEvent } from './normalise-event';

/** Item types listed as events; everything else (sessions, spans, …) is only counted. */
const LISTED_TYPES = new Set(['event']);
const MAX_SUMMARY_TEXT = 500;
export interface EnvelopeSummary {
  /** How many items of each type the envelope holds. */
  itemCounts: Record<string, number>;
  /** The first listed event, if any. */
  event?: EventSummary;
  /** Why the envelope could not be read completely, if it could not. */
  problem?: string;
}

export function summarizeEnvelope(bytes: Uint8Array, fallbackId: string): EnvelopeSummary {
  const envelope = splitEnvelope(bytes);
  const itemCounts = emptyItemCounts();
  for (const item of envelope.items) countItemType(itemCounts, item.header.type);
  const event = firstEvent(envelope);
  const summary: EnvelopeSummary = { itemCounts };
  if (event) {
    summary.event = eventSummaryOf(event, idOf(event, envelope, fallbackId), MAX_SUMMARY_TEXT);
  }
  if (envelope.problem) summary.problem = envelope.problem;
  return summary;
}

/** The detail of the envelope's event (bounded as at ingest), or undefined when it holds none. */
export function envelopeEventDetail(
  bytes: Uint8Array,
  fallbackId: string,
): EventDetail | undefined {
  const envelope = splitEnvelope(bytes);
  const found = firstEvent(envelope);
  if (!found) return undefined;
  const event = normaliseEvent(found);
  return eventDetailOf(event, idOf(event, envelope, fallbackId));
}

function firstEvent(envelope: Envelope): Record<string, unknown> | undefined {
  for (const item of envelope.items) {
    if (!LISTED_TYPES.has(String(item.header.type))) continue;
    const payload = payloadJson(item);
    if (isRecord(payload)) return payload;
  }
  return undefined;
}

function idOf(event: Record<string, unknown>, envelope: Envelope, fallbackId: string): string {
  for (const id of [event.event_id, envelope.header.event_id]) {
    if (typeof id === 'string' && id !== '') return id;
  }
  return fallbackId;
}
