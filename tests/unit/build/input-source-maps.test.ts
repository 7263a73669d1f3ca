import { describe, expect, it } from 'vitest';
import { isRouterOutput } from '../../../build/input-source-maps';

describe('isRouterOutput', () => {
  it.each([
    ['/w/.vinxi/build/ssr/assets/ssr-error-abc.js', true],
    ['/w/.vinxi/build/server/_server/assets/server-abc.js', true],
    ['/w/.vinxi/build/monitoring-tunnel/monitoring/tunnel.mjs', true],
    ['C:\\w\\.vinxi\\build\\ssr\\assets\\ssr.js', true],
    ['/w/.vinxi/build/ssr/assets/app.css', false],
    ['/w/app/server/node/node-server.server.ts', false],
    ['/w/node_modules/h3/dist/index.mjs', false],
  ])('%s → %j', (id, expected) => {
    expect(isRouterOutput(id)).toBe(expected);
  });
});
