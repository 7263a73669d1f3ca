/**
 * Which envelopes local inbox mode keeps. The inbox lists captured errors and keeps only the
 * newest 1,000 envelopes, while the browser SDK (traces at 1 in local mode) also sends spans,
 * sessions and client reports on every page view: stored, they would push the errors out.
 * So the inbox keeps envelopes that carry an error event or user feedback (and whatever rides
 * with them, like attachments); the rest are answered like Sentry would and dropped.
 * Framework-free: reads item headers only, never decodes a payload.
 */

const KEPT_ITEM_TYPES = new Set(['event', 'feedback', 'user_report']);
const NEWLINE = 0x0a;

/** The item types of an envelope, in order; stops at the first item header it cannot read. */
export function itemTypesOf(envelope: Uint8Array): string[] {
  const bytes = Buffer.from(envelope.buffer, envelope.byteOffset, envelope.length);
  const types: string[] = [];
  let at = bytes.indexOf(NEWLINE);
  while (at !== -1 && at + 1 < bytes.length) {
    const start = at + 1;
    const end = bytes.indexOf(NEWLINE, start);
    const headerEnd = end === -1 ? bytes.length : end;
    let header: { type?: unknown; length?: unknown };
    try {
      header = JSON.parse(bytes.toString('utf8', start, headerEnd));
    } catch {
      break;
    }
    if (typeof header !== 'object' || header === null || typeof header.type !== 'string') break;
    types.push(header.type);
    if (end === -1) break;
    // A payload has the header's `length` in bytes, or runs to the next newline.
    const payloadStart = end + 1;
    at =
      typeof header.length === 'number' && header.length >= 0
        ? payloadStart + header.length
        : bytes.indexOf(NEWLINE, payloadStart);
    if (at >= bytes.length) break;
    if (at !== -1 && bytes[at] !== NEWLINE) at -= 1;
  }
  return types;
}

/** Whether local inbox mode stores this envelope. */
export function keptInLocalInbox(envelope: Uint8Array): boolean {
  return itemTypesOf(envelope).some((type) => KEPT_ITEM_TYPES.has(type));
}
