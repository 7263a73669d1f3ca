/**
 * What the /errors pages receive: plain, serialisable shapes built from the store's
 * entries. Pure, so paging and counting are tested without a server.
 */
import type { EventSummary } from './inbox-event';

export const INBOX_PAGE_SIZE = 50;

export interface InboxEntryLike {
  id: string;
  receivedAt: Date;
  summary: { itemCounts: Record<string, number>; event?: EventSummary };
}

export interface ListedEvent extends EventSummary {
  /** When the server received it (ISO), which orders the list. */
  receivedAt: string;
}

export interface InboxPage {
  events: ListedEvent[];
  page: number;
  pageCount: number;
  /** Envelopes with an event in them. */
  eventCount: number;
  /** Every envelope in the inbox, listed or not. */
  envelopeCount: number;
  /** Items of every type across the inbox (event, session, client_report, span, …). */
  itemCounts: Record<string, number>;
}

/** One page of the events, newest first (the entries come newest first). */
export function inboxPage(
  entries: readonly InboxEntryLike[],
  page: number,
  pageSize = INBOX_PAGE_SIZE,
): InboxPage {
  const itemCounts: Record<string, number> = {};
  const events: ListedEvent[] = [];
  for (const entry of entries) {
    for (const [type, count] of Object.entries(entry.summary.itemCounts)) {
      itemCounts[type] = (itemCounts[type] ?? 0) + count;
    }
    if (entry.summary.event) {
      events.push({ ...entry.summary.event, receivedAt: entry.receivedAt.toISOString() });
    }
  }
  const pageCount = Math.max(1, Math.ceil(events.length / pageSize));
  const current = Math.min(Math.max(1, page), pageCount);
  return {
    events: events.slice((current - 1) * pageSize, current * pageSize),
    page: current,
    pageCount,
    eventCount: events.length,
    envelopeCount: entries.length,
    itemCounts,
  };
}

/** The newest entry whose event has this id. */
export function findEventEntry<T extends InboxEntryLike>(
  entries: readonly T[],
  eventId: string,
): T | undefined {
  return entries.find((entry) => entry.summary.event?.eventId === eventId);
}

/**
 * A browser only sends a cross-site form POST with an Origin of another site; refusing
 * those keeps another page from clearing the inbox. No Origin (curl, old browsers) is allowed.
 */
export function isSameOriginPost(origin: string | null, host: string | null): boolean {
  if (!origin) return true;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
