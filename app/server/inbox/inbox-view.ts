/**
 * What the /errors pages receive: plain, serialisable shapes built from the store's
 * entries. Pure, so paging and counting are tested without a server.
 */
import { countItemType, emptyItemCounts } from './classify-envelope';
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
  /** The top frame of our own code, through the source maps ("app/…/index.tsx:24 in onClick"). */
  topFrame?: string;
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

/**
 * One page of the events, newest first (the entries come newest first). An event id is listed
 * once, for the first envelope that carried it (see findEventEntry); later ones are counted as
 * envelopes only.
 */
export function inboxPage(
  entries: readonly InboxEntryLike[],
  page: number,
  pageSize = INBOX_PAGE_SIZE,
): InboxPage {
  const itemCounts = emptyItemCounts();
  const firsts = firstOfEachEvent(entries);
  const events: ListedEvent[] = [];
  for (const entry of entries) {
    for (const [type, count] of Object.entries(entry.summary.itemCounts)) {
      countItemType(itemCounts, type, count);
    }
    if (entry.summary.event && firsts.has(entry)) {
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

/**
 * The entry of an event id: the first one received (the entries come newest first). The local
 * DSN is public, so anyone can send an envelope with the id of an event already in the inbox;
 * the first one wins, as in Sentry, which drops an event whose id it has already stored. Every
 * envelope is still kept (decision 0103): deciding at append time would make each append wait
 * for the whole inbox to be read after a restart.
 */
export function findEventEntry<T extends InboxEntryLike>(
  entries: readonly T[],
  eventId: string,
): T | undefined {
  return entries.findLast((entry) => entry.summary.event?.eventId === eventId);
}

function firstOfEachEvent(entries: readonly InboxEntryLike[]): Set<InboxEntryLike> {
  const seen = new Set<string>();
  const firsts = new Set<InboxEntryLike>();
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index] as InboxEntryLike;
    const id = entry.summary.event?.eventId;
    if (id === undefined || seen.has(id)) continue;
    seen.add(id);
    firsts.add(entry);
  }
  return firsts;
}
