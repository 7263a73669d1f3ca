/**
 * JSON values as clients send them to the inbox: whether one is a record (what envelope lines
 * must be), and strings made well formed before a page renders them.
 */

/**
 * Stored events are whatever a client sent, and JSON may carry a lone UTF-16 surrogate
 * (`"\ud800"`). Rendered into HTML it becomes U+FFFD on the wire, while the page's hydration
 * data keeps the surrogate, so React finds different text and fails hydration (#418), and the
 * browser reports that as a new error on every view. Every string the inbox pages receive goes
 * through here first: a lone surrogate becomes U+FFFD on both sides (String#toWellFormed).
 * Pure.
 */

/** The platform's own (Node 20 has it; TypeScript's ES2023 lib does not name it yet). */
type WellFormable = string & { toWellFormed(): string };

export function wellFormedText(text: string): string {
  return (text as WellFormable).toWellFormed();
}

/** A copy of `value` (plain JSON-like data) with every string, key or value, well formed. */
export function wellFormed<T>(value: T): T {
  return mapStrings(value) as T;
}

function mapStrings(value: unknown): unknown {
  if (typeof value === 'string') return wellFormedText(value);
  if (Array.isArray(value)) return value.map(mapStrings);
  if (value === null || typeof value !== 'object') return value;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[wellFormedText(key)] = mapStrings(item);
  return copy;
}

/** A parsed JSON value that is an object (not null, not an array): what envelope lines must be. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
