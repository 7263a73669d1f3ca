/**
 * An envelope as the inbox stores it: each event item bounded by normaliseEvent (what Sentry
 * would keep), every other item and byte exactly as it arrived. An envelope with nothing to
 * cut is returned as the very bytes given.
 */
import { isRecord } from '#app/server/is-record';
import { type EnvelopeItem, headerLineOf, joinEnvelope, splitEnvelope } from './envelope';
import { normaliseEvent } from './normalise-event';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function normaliseEnvelope(bytes: Uint8Array): Uint8Array {
  const envelope = splitEnvelope(bytes);
  let changed = false;
  const items = envelope.items.map((item): EnvelopeItem => {
    if (item.header.type !== 'event') return item;
    const text = decoder.decode(item.payload);
    const event = parsed(text);
    // Not an object: no page shows it, so there is nothing to bound.
    if (!isRecord(event)) return item;
    const normalised = JSON.stringify(normaliseEvent(event));
    // SDKs write events with JSON.stringify: one within bounds comes out as the same text.
    if (normalised === text) return item;
    changed = true;
    const payload = encoder.encode(normalised);
    // A new header line: the old one's length no longer fits the payload.
    return { header: headerWithLength(item.header, payload.length), payload };
  });
  if (!changed) return bytes;
  return joinEnvelope(headerLineOf(bytes), items, envelope.rest);
}

/** The item header with the payload's length; just type and length if it cannot be serialised. */
function headerWithLength(header: Record<string, unknown>, length: number) {
  const fixed = { ...header, length };
  return jsonOrUndefined(fixed) === undefined ? { type: 'event', length } : fixed;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** JSON text, or undefined when the value cannot be serialised (too deep for the stack). */
function jsonOrUndefined(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
