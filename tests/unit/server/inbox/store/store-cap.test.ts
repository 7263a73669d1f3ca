import { describe, expect, it } from 'vitest';
import { evictionTargetOf, storeCapOf } from '#app/server/inbox/store/store-cap';

const MIB = 1024 * 1024;

describe('storeCapOf: the cap split between the WAL and the data', () => {
  it.each([
    // cap MiB, WAL checkpoint pages, journal limit, evict above, evict down to, session outcomes
    [8, 128, MIB / 2, 1459, 1382, 1_024],
    [256, 4_096, 16 * MIB, 46_694, 44_236, 32_768],
  ])('%i MiB', (maxMb, checkpoint, journal, above, downTo, outcomes) => {
    const cap = storeCapOf(maxMb);
    expect(cap).toEqual({
      maxBytes: maxMb * MIB,
      walAutocheckpointPages: checkpoint,
      journalSizeLimitBytes: journal,
      evictAbovePages: above,
      evictDownToPages: downTo,
      maxSessionOutcomes: outcomes,
    });
    // The data's threshold and the WAL's quarter together stay inside the cap.
    expect(cap.evictAbovePages * 4096 + maxMb * MIB * 0.25).toBeLessThanOrEqual(cap.maxBytes);
  });
});

describe('evictionTargetOf: when to evict, and down to what', () => {
  const cap = storeCapOf(8);
  it.each([
    ['an empty file', { pageCount: 2, freePages: 0 }, undefined],
    ['in use just at the threshold', { pageCount: 1459, freePages: 0 }, undefined],
    ['one page past it', { pageCount: 1460, freePages: 0 }, 1382],
    ['a long file whose free pages leave it under', { pageCount: 1600, freePages: 200 }, undefined],
    ['a long file mostly in use', { pageCount: 1600, freePages: 100 }, 1382],
  ])('%s', (_name, pages, target) => {
    expect(evictionTargetOf(pages, cap)).toBe(target);
  });
});
