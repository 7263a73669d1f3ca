import { describe, expect, it } from 'vitest';
import { isTunnelPath } from '#app/server/tunnel/tunnel-instance.server';

describe('isTunnelPath', () => {
  it.each([
    ['/monitoring', true],
    ['/monitoring?o=1&p=2', true],
    ['/monitoring#x', true],
    ['/monitoringX', false],
    ['/monitoring/', false],
    ['/monitoring/x?o=1&p=2', false],
    ['/Monitoring', false],
    ['/api/monitoring', false],
    ['/', false],
  ])('%s -> %s', (url, expected) => {
    expect(isTunnelPath(url)).toBe(expected);
  });
});
