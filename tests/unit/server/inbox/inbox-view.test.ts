import { describe, expect, it } from 'vitest';
import type { EventSummary } from '#app/server/inbox/inbox-event';
import { findEventEntry, type InboxEntryLike, inboxPage } from '#app/server/inbox/inbox-view';

const event = (n: number): EventSummary => ({
  eventId: `id-${n}`,
  level: 'error',
  type: 'Error',
  message: `event ${n}`,
});

/** Newest first, as the store lists them: every third envelope is a session. */
function entries(count: number): InboxEntryLike[] {
  return Array.from({ length: count }, (_, index): InboxEntryLike => {
    const n = count - index;
    const receivedAt = new Date(Date.UTC(2025, 0, 1) + n * 1000);
    return n % 3 === 0
      ? { id: `e${n}`, receivedAt, summary: { itemCounts: { session: 1 } } }
      : { id: `e${n}`, receivedAt, summary: { itemCounts: { event: 1 }, event: event(n) } };
  });
}

describe('inboxPage', () => {
  it.each([
    { total: 0, page: 1, size: 2, expected: { ids: [], page: 1, pageCount: 1, events: 0 } },
    {
      total: 6,
      page: 1,
      size: 2,
      expected: { ids: ['id-5', 'id-4'], page: 1, pageCount: 2, events: 4 },
    },
    {
      total: 6,
      page: 2,
      size: 2,
      expected: { ids: ['id-2', 'id-1'], page: 2, pageCount: 2, events: 4 },
    },
    {
      total: 6,
      page: 9,
      size: 2,
      expected: { ids: ['id-2', 'id-1'], page: 2, pageCount: 2, events: 4 },
    },
  ])('page $page of $total envelopes, $size per page', ({ total, page, size, expected }) => {
    const result = inboxPage(entries(total), page, size);
    expect(result.events.map((listed) => listed.eventId)).toEqual(expected.ids);
    expect(result.page).toBe(expected.page);
    expect(result.pageCount).toBe(expected.pageCount);
    expect(result.eventCount).toBe(expected.events);
    expect(result.envelopeCount).toBe(total);
  });

  it('counts items of every type and stamps events with their arrival', () => {
    const result = inboxPage(entries(6), 1, 10);
    expect(result.itemCounts).toEqual({ event: 4, session: 2 });
    expect(result.events[0]?.receivedAt).toBe('2025-01-01T00:00:05.000Z');
  });
});

/** Newest first: a later envelope that reuses the id of the first one, and an unrelated one. */
function withDuplicate(): InboxEntryLike[] {
  const at = (n: number) => new Date(Date.UTC(2025, 0, 1) + n * 1000);
  const first = { ...event(1), message: 'the real event' };
  const copy = { ...event(1), message: 'a later envelope with the same id' };
  return [
    { id: 'e3', receivedAt: at(3), summary: { itemCounts: { event: 1 }, event: copy } },
    { id: 'e2', receivedAt: at(2), summary: { itemCounts: { event: 1 }, event: event(2) } },
    { id: 'e1', receivedAt: at(1), summary: { itemCounts: { event: 1 }, event: first } },
  ];
}

describe('findEventEntry', () => {
  it('finds the entry of an event id, or nothing', () => {
    expect(findEventEntry(entries(6), 'id-4')?.id).toBe('e4');
    expect(findEventEntry(entries(6), 'id-3')).toBeUndefined();
  });

  it('finds the first envelope with an id, never a later one that reuses it', () => {
    expect(findEventEntry(withDuplicate(), 'id-1')?.id).toBe('e1');
  });
});

describe('inboxPage with a reused event id', () => {
  it('lists the first envelope of an id only, and counts every envelope', () => {
    const page = inboxPage(withDuplicate(), 1);
    expect(page.events.map((listed) => listed.message)).toEqual(['event 2', 'the real event']);
    expect(page.eventCount).toBe(2);
    expect(page.envelopeCount).toBe(3);
  });
});
