/**
 * What the /errors pages receive: plain, serialisable shapes built from the store's
 * entries. Pure, so paging and counting are tested without a server.
 */
import { countItemType, type EventSummary, emptyItemCounts } from './inbox-event';

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
  const itemCounts = emptyItemCounts();
  const events: ListedEvent[] = [];
  for (const entry of entries) {
    for (const [type, count] of Object.entries(entry.summary.itemCounts)) {
      countItemType(itemCounts, type, count);
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

export interface ClearRequest {
  method: string;
  origin: string | null;
  host: string | null;
  /** The browser's Sec-Fetch-Site header: which site the request comes from. */
  fetchSite: string | null;
}

/**
 * Why a request to clear the inbox is refused, or undefined when it may go ahead.
 * Start 1.120's server-function handler also accepts GET whatever the declared method, and a
 * cross-site GET (an `<img>`, a link) carries no Origin: so only POST, and never from another
 * site by Sec-Fetch-Site or Origin. No Origin and no Sec-Fetch-Site (curl) is allowed.
 */
export function clearRefusal(
  request: ClearRequest,
): { status: 403 | 405; reason: string } | undefined {
  if (request.method !== 'POST') return { status: 405, reason: 'Only POST clears the inbox' };
  const { fetchSite, origin, host } = request;
  if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') {
    return { status: 403, reason: 'Cross-site request refused' };
  }
  if (!origin) return undefined;
  try {
    if (new URL(origin).host === host) return undefined;
  } catch {
    // "null" (a sandboxed or privacy-sensitive context) is not this site either.
  }
  return { status: 403, reason: 'Cross-site request refused' };
}
