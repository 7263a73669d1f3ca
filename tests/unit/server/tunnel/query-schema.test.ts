import { describe, expect, it } from 'vitest';
import { parseTunnelQuery } from '#app/server/tunnel/query-schema';

describe('parseTunnelQuery', () => {
  it.each([
    ['/monitoring?o=123&p=456', { o: '123', p: '456' }],
    ['/monitoring?o=123&p=456&r=us', { o: '123', p: '456', r: 'us' }],
    ['?p=1&o=0', { o: '0', p: '1' }],
    ['/monitoring?o=0&p=1&extra=ignored', { o: '0', p: '1' }],
    [`/monitoring?o=${'9'.repeat(20)}&p=1`, { o: '9'.repeat(20), p: '1' }],
  ])('accepts %s', (url, target) => {
    expect(parseTunnelQuery(url)).toEqual({ ok: true, target });
  });

  it.each([
    ['/monitoring', 'o'],
    ['/monitoring?p=1', 'o'],
    ['/monitoring?o=1', 'p'],
    ['/monitoring?o=&p=1', 'o'],
    ['/monitoring?o=abc&p=1', 'o'],
    ['/monitoring?o=-1&p=1', 'o'],
    ['/monitoring?o=1.5&p=1', 'o'],
    [`/monitoring?o=${'9'.repeat(21)}&p=1`, 'o'],
    ['/monitoring?o=1&p=1%2F..%2Fevil', 'p'],
    ['/monitoring?o=1&p=%20', 'p'],
    ['/monitoring?o=1&p=1&r=US', 'r'],
    ['/monitoring?o=1&p=1&r=usa', 'r'],
    ['/monitoring?o=1&p=1&r=', 'r'],
    ['/monitoring?o=1&p=1&r=u1', 'r'],
  ])('rejects %s naming "%s"', (url, parameter) => {
    const result = parseTunnelQuery(url);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(`"${parameter}"`);
  });
});
