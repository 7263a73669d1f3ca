import { describe, expect, it } from 'vitest';
import { clientChunkFileName, clientChunkOf, packageOf } from '../../../build/client-chunks';

const NM = '/work/app/node_modules';

describe('clientChunkOf', () => {
  it.each([
    [`${NM}/react/cjs/react.production.js`, 'vendor-react'],
    [`${NM}/react-dom/cjs/react-dom-client.production.js`, 'vendor-react'],
    [`${NM}/scheduler/cjs/scheduler.production.js`, 'vendor-react'],
    [
      `${NM}/use-sync-external-store/cjs/use-sync-external-store-shim.production.js`,
      'vendor-react',
    ],
    [`${NM}/@sentry/react/build/esm/index.js`, 'vendor-sentry'],
    [`${NM}/@sentry-internal/replay/build/npm/esm/index.js`, 'vendor-sentry'],
    // What reports errors loads before hydration...
    [`${NM}/@sentry/react/build/esm/sdk.js`, 'vendor-sentry'],
    [`${NM}/@sentry/browser/build/npm/esm/prod/transports/fetch.js`, 'vendor-sentry'],
    [`${NM}/@sentry/browser/build/npm/esm/prod/integrations/globalhandlers.js`, 'vendor-sentry'],
    [`${NM}/@sentry/browser-utils/build/esm/web-vitals/utils.js`, 'vendor-sentry'],
    [`${NM}/@sentry/browser-utils/build/esm/instrumentation/dom.js`, 'vendor-sentry'],
    [`${NM}/@sentry/core/build/esm/client.js`, 'vendor-sentry'],
    [`${NM}/@sentry/core/build/esm/transports/base.js`, 'vendor-sentry'],
    [`${NM}/@sentry/core/build/esm/tracing/utils.js`, 'vendor-sentry'],
    [`${NM}/@sentry/core/build/esm/tracing/spans/captureSpan.js`, 'vendor-sentry'],
    [`${NM}/@sentry/conventions/dist/attributes.mjs`, 'vendor-sentry'],
    // The offline store: errors are stored too, when the page is offline.
    [`${NM}/@sentry/browser/build/npm/esm/prod/transports/offline.js`, 'vendor-sentry'],
    [`${NM}/@sentry/core/build/esm/transports/offline.js`, 'vendor-sentry'],
    // ...what only tracing uses, loaded only for a traced page view.
    [`${NM}/@sentry/react/build/esm/tanstackrouter.js`, 'sentry-tracing'],
    [
      `${NM}/@sentry/browser/build/npm/esm/prod/tracing/browserTracingIntegration.js`,
      'sentry-tracing',
    ],
    [`${NM}/@sentry/browser/build/npm/esm/dev/tracing/request.js`, 'sentry-tracing'],
    [`${NM}/@sentry/browser/build/npm/esm/prod/integrations/webVitals.js`, 'sentry-tracing'],
    [`${NM}/@sentry/browser-utils/build/esm/web-vitals/lcp.js`, 'sentry-tracing'],
    [`${NM}/@sentry/browser-utils/build/esm/performance/entries.js`, 'sentry-tracing'],
    [
      `${NM}/@sentry/browser-utils/build/esm/instrumentation/performanceObserver.js`,
      'sentry-tracing',
    ],
    [`${NM}/@sentry/core/build/esm/tracing/idleSpan.js`, 'sentry-tracing'],
    [`${NM}/@sentry/core/build/esm/tracing/sentrySpan.js`, 'sentry-tracing'],
    [`${NM}/@sentry/core/build/esm/tracing/spans/spanBuffer.js`, 'sentry-tracing'],
    [`${NM}/@sentry/core/build/esm/integrations/spanStreaming.js`, 'sentry-tracing'],
    [`${NM}/@sentry/core/build/esm/fetch.js`, 'sentry-tracing'],
    [`${NM}/@sentry/conventions/dist/op.mjs`, 'sentry-tracing'],
    [`${NM}/web-vitals/dist/web-vitals.js`, 'sentry-tracing'],
    ['C:\\app\\node_modules\\@sentry\\core\\build\\esm\\tracing\\idleSpan.js', 'sentry-tracing'],
    [`${NM}/@tanstack/react-router/dist/esm/index.js`, 'router'],
    [`${NM}/@tanstack/router-core/node_modules/seroval/dist/esm/index.mjs`, 'vendor'],
    [`${NM}/valibot/dist/index.mjs`, 'vendor'],
    // Names that only start like React's packages are other packages.
    [`${NM}/react-is/index.js`, 'vendor'],
    [`${NM}/reactive/index.js`, 'vendor'],
    ['C:\\app\\node_modules\\react\\index.js', 'vendor-react'],
    // The app's own modules and rollup's virtual ones are left to rollup.
    ['/work/app/app/client.tsx', undefined],
    ['/work/app/app/routes/about.tsx?tsr-split=component', undefined],
    ['\0vite/preload-helper.js', undefined],
  ])('%s → %s', (id, chunk) => {
    expect(clientChunkOf(id)).toBe(chunk);
  });
});

describe('packageOf', () => {
  it.each([
    [`${NM}/@scope/pkg/x.js`, '@scope/pkg'],
    [`${NM}/pkg/x.js`, 'pkg'],
    [`${NM}/a/node_modules/b/x.js`, 'b'],
    ['/work/app/app/triage.ts', undefined],
  ])('%s → %s', (id, pkg) => {
    expect(packageOf(id)).toBe(pkg);
  });
});

describe('clientChunkFileName', () => {
  it.each([
    [
      "a route's own chunk keeps the route's name",
      { name: 'about', facadeModuleId: '/r/app/routes/about.tsx?tsr-split=component' },
      ['/r/app/routes/about.tsx?tsr-split=component'],
      'assets/[name]-[hash].js',
    ],
    [
      'shared app code named after the entry is "app"',
      { name: 'client', facadeModuleId: null },
      ['/r/app/router.tsx', '/r/app/client.tsx'],
      'assets/app-[hash].js',
    ],
    [
      'shared app code named after a route split it absorbed is "app"',
      { name: 'missing-error-component', facadeModuleId: null },
      ['/r/app/client.tsx', '/r/app/routes/Charts.tsx?tsr-split=errorComponent'],
      'assets/app-[hash].js',
    ],
    [
      "the entry itself keeps vinxi's name",
      { name: 'client', facadeModuleId: 'virtual:$vinxi/handler/client' },
      ['virtual:$vinxi/handler/client'],
      'assets/[name]-[hash].js',
    ],
    [
      'a shared component chunk keeps its name',
      { name: 'EventList', facadeModuleId: null },
      ['/a/components/inbox/IssueEvents.tsx'],
      'assets/[name]-[hash].js',
    ],
    [
      'a vendor chunk keeps its name',
      { name: 'vendor-react', facadeModuleId: null },
      [`${NM}/react/index.js`],
      'assets/[name]-[hash].js',
    ],
  ])('%s', (_case, facts, moduleIds, pattern) => {
    expect(clientChunkFileName({ ...facts, moduleIds })).toBe(pattern);
  });
});
