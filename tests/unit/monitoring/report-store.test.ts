import { describe, expect, it } from 'vitest';
import type { Report } from '#app/monitoring/recorder/recorder';
import {
  fitsInStore,
  MAX_STORED_BYTES,
  openReportStore,
} from '#app/monitoring/recorder/report-store';

const report = (id: string, message = 'boom'): Report => ({
  id,
  kind: 'error',
  at: 1,
  url: 'http://h/',
  message,
});

describe('fitsInStore: 64 reports and a byte bound', () => {
  const many = (count: number) => Array.from({ length: count }, (_, i) => report(`r${i}`));
  it.each<[string, Report[], Report, boolean]>([
    ['an empty store', [], report('a'), true],
    ['63 kept', many(63), report('a'), true],
    ['64 kept', many(64), report('a'), false],
    ['the same id again, even when full', many(64), report('r3'), true],
    ['past the byte bound', [report('big', 'x'.repeat(MAX_STORED_BYTES))], report('a'), false],
    ['one report alone past the bound', [], report('big', 'x'.repeat(MAX_STORED_BYTES)), false],
  ])('%s: %s', (_name, stored, next, fits) => {
    expect(fitsInStore(stored, next)).toBe(fits);
  });
});

/** localStorage as the browser has it, in memory. */
function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  };
}

describe('openReportStore without IndexedDB: localStorage', () => {
  it('keeps reports across page views until settled, and a settled id is never unsettled again', async () => {
    const localStorage = memoryStorage();
    const first = openReportStore({ localStorage });
    await first.add(report('a'));
    await first.add(report('b'));
    // The next page view (a new store on the same storage) finds both.
    const next = openReportStore({ localStorage });
    expect((await next.unsettled()).map((kept) => kept.id)).toEqual(['a', 'b']);
    first.settle(['a']);
    expect(next.isSettled('a')).toBe(true);
    expect((await next.unsettled()).map((kept) => kept.id)).toEqual(['b']);
    // Added again (another tab still held it): still settled.
    await next.add(report('a'));
    expect((await next.unsettled()).map((kept) => kept.id)).toEqual(['b']);
  });

  it('with neither storage, nothing is kept and nothing fails', async () => {
    const store = openReportStore({});
    await store.add(report('a'));
    store.settle(['a']);
    expect(await store.unsettled()).toEqual([]);
    expect(store.isSettled('a')).toBe(false);
  });
});
