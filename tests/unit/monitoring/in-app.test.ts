import type { StackFrame } from '@sentry/core';
import { describe, expect, it } from 'vitest';
import {
  isInAppFrame,
  LIBRARY_CHUNKS,
  limitStackFrames,
  markInAppFrames,
} from '#app/monitoring/in-app';
import { clientChunkOf } from '../../../build/client-chunks';

const ASSETS = 'https://app.example.com/_build/assets';

describe('isInAppFrame', () => {
  it.each([
    // The production build's chunks: libraries are not ours...
    [`${ASSETS}/vendor-react-DDq-4j0n.js`, false],
    [`${ASSETS}/vendor-sentry-D9m0_JGt.js`, false],
    [`${ASSETS}/sentry-tracing-Cg6AnKCd.js`, false],
    [`${ASSETS}/router-CDdntTyl.js`, false],
    [`${ASSETS}/vendor-SgwAN6kP.js`, false],
    [`${ASSETS}/__vite-browser-external-BH9sb9Nu.js`, false],
    [`${ASSETS}/vendor--bcdefgh.js`, false],
    // ...routes, the shared app chunk and the entry are.
    [`${ASSETS}/sentry-example-page-etmAYWlX.js`, true],
    [`${ASSETS}/ssr-error-CpV1QBCI.js`, true],
    [`${ASSETS}/ssr-error-T4lmVFhb.js`, true],
    [`${ASSETS}/app-Bvk0b8ih.js`, true],
    [`${ASSETS}/client-CW0JEvFH.js`, true],
    [`${ASSETS}/EventList-CQ1rRdFU.js`, true],
    [`${ASSETS}/route-BL9ndFoj.js`, true],
    [`${ASSETS}/sdk-loader-ChD1Lf38.js`, true],
    // A name that only starts like a library chunk is a route's.
    [`${ASSETS}/vendors-list-AbCdEfGh.js`, true],
    [`${ASSETS}/router-settings-AbCdEfGh.js`, true],
    // A query or fragment does not change the file.
    [`${ASSETS}/vendor-react-DDq-4j0n.js?v=1`, false],
    [`${ASSETS}/app-Bvk0b8ih.js#x`, true],
    // The dev server: our sources are, pre-bundled dependencies and vite's client are not.
    ['http://localhost:3000/_build/app/routes/about.tsx?tsr-split=component', true],
    ['http://localhost:3000/_build/node_modules/.vite/deps/react-dom_client.js?v=1a2b', false],
    ['http://localhost:3000/_build/@fs/srv/app/node_modules/@tanstack/x.js', false],
    ['http://localhost:3000/_build/@vite/client', false],
    // Not one of our scripts at all.
    ['https://app.example.com/sentry-example-page', false],
    ['https://cdn.example.com/_lib/vendor.js', false],
    ['https://app.example.com/assets/ssr.js', false],
    ['chrome-extension://abcdef/content.js', false],
    ['<anonymous>', false],
    ['native', false],
    ['', false],
    [undefined, false],
  ])('%s -> %s', (filename, inApp) => {
    expect(isInAppFrame(filename)).toBe(inApp);
  });

  it('knows every chunk the build gives library code', () => {
    const libraries = [
      '/w/node_modules/react-dom/cjs/react-dom-client.production.js',
      '/w/node_modules/scheduler/index.js',
      '/w/node_modules/use-sync-external-store/shim/index.js',
      '/w/node_modules/@sentry/browser/build/npm/esm/index.js',
      '/w/node_modules/@sentry/browser/build/npm/esm/prod/tracing/browserTracingIntegration.js',
      '/w/node_modules/web-vitals/dist/web-vitals.js',
      '/w/node_modules/@sentry-internal/replay/build/index.js',
      '/w/node_modules/@tanstack/router-core/dist/esm/router.js',
      '/w/node_modules/valibot/dist/index.js',
    ];
    for (const id of libraries) {
      const chunk = clientChunkOf(id);
      expect(LIBRARY_CHUNKS, id).toContain(chunk);
      expect(isInAppFrame(`${ASSETS}/${chunk}-AbCd_f-h.js`), id).toBe(false);
    }
  });
});

describe('markInAppFrames', () => {
  it('replaces the SDK in_app with the chunk decision and keeps the rest of each frame', () => {
    const parsed: StackFrame[] = [
      { filename: `${ASSETS}/vendor-react-DDq-4j0n.js`, function: 'a', lineno: 1, in_app: true },
      { filename: `${ASSETS}/app-Bvk0b8ih.js`, function: 'b', lineno: 2, in_app: true },
      { function: '?', in_app: true },
    ];
    const calls: unknown[][] = [];
    const frames = markInAppFrames((...args) => {
      calls.push(args);
      return parsed;
    })('stack', 1, 2);
    expect(calls).toEqual([['stack', 1, 2]]);
    expect(frames).toEqual([
      { ...parsed[0], in_app: false },
      { ...parsed[1], in_app: true },
      { function: '?', in_app: false },
    ]);
  });
});

const framesOf = (count: number): StackFrame[] =>
  Array.from({ length: count }, (_, index) => ({ function: `frame${index}` }));

describe('limitStackFrames', () => {
  it.each([
    [0, 0],
    [10, 10],
    [50, 50],
    [51, 50],
    [101, 50],
    [500, 50],
  ])('%i parsed frames -> %i kept', (parsed, kept) => {
    const parser = limitStackFrames(() => framesOf(parsed));
    expect(parser('stack')).toHaveLength(kept);
  });

  it('keeps the frames nearest to the throw (Sentry orders frames oldest first)', () => {
    const frames = limitStackFrames(() => framesOf(101))('stack');
    expect(frames[0]?.function).toBe('frame51');
    expect(frames.at(-1)?.function).toBe('frame100');
  });

  it('passes the parser arguments through', () => {
    const calls: unknown[][] = [];
    limitStackFrames((...args) => {
      calls.push(args);
      return [];
    })('stack', 2, 1);
    expect(calls).toEqual([['stack', 2, 1]]);
  });
});
