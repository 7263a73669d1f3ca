/**
 * Tests of sentry-client, one section per part of the module, in its order.
 */
import { describe, expect, it } from 'vitest';
import { serverStackParser } from '#app/server/failures/sentry-client.server';

describe('serverStackParser: in_app of the frames Node maps for us', () => {
  it.each([
    // Our sources, as Node names them through the server's maps.
    ['at loader (/srv/app/app/routes/sentry-example-page/ssr-error.tsx:7:11)', true],
    ['at u (/srv/app/app/routes/sentry-example-page/index.tsx:60:9)', true],
    ['at handler (file:///srv/app/app/server/inbox/inbox.functions.ts:31:5)', true],
    // Dependencies: bundled ones mapped back to node_modules, and the ones nitro copied.
    ['at runLoader (/srv/app/node_modules/@tanstack/router-core/dist/esm/router.js:1111:5)', false],
    [
      'at renderElement (/srv/app/.output/server/node_modules/react-dom/cjs/react-dom-server.node.production.js:5243:17)',
      false,
    ],
    [
      'at /srv/app/.output/server/node_modules/@tanstack/router-core/dist/esm/router.js:1022:30',
      false,
    ],
    ['at h3 (file:///srv/app/node_modules/h3/dist/index.mjs:1:1)', false],
    // Node itself.
    ['at process.processTicksAndRejections (node:internal/process/task_queues:95:5)', false],
    ['at Array.forEach (<anonymous>)', false],
  ])('%s -> %s', (line, inApp) => {
    const frames = serverStackParser(`Error: x\n    ${line}`);
    expect(frames).toHaveLength(1);
    expect(frames[0]?.in_app).toBe(inApp);
  });
});
