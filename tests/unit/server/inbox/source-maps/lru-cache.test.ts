import { describe, expect, it } from 'vitest';
import { LruCache } from '#app/server/inbox/source-maps/lru-cache';

describe('LruCache', () => {
  it('drops the least recently used past the count bound', () => {
    const cache = new LruCache<string, number>(2, 1000);
    cache.set('a', 1, 1);
    cache.set('b', 2, 1);
    cache.get('a');
    cache.set('c', 3, 1);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
    expect(cache.size).toBe(2);
  });

  it('drops the oldest until the weight fits', () => {
    const cache = new LruCache<string, number>(10, 100);
    cache.set('a', 1, 40);
    cache.set('b', 2, 40);
    cache.set('c', 3, 50);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 2, 3]);
    expect(cache.weight).toBe(90);
  });

  it('keeps one entry heavier than the budget, alone', () => {
    const cache = new LruCache<string, number>(10, 100);
    cache.set('a', 1, 10);
    cache.set('big', 2, 500);
    expect([cache.size, cache.weight, cache.get('big')]).toEqual([1, 500, 2]);
  });

  it('replacing a key does not count it twice', () => {
    const cache = new LruCache<string, number>(10, 100);
    cache.set('a', 1, 30);
    cache.set('a', 2, 30);
    expect([cache.size, cache.weight, cache.get('a')]).toEqual([1, 30, 2]);
  });
});
