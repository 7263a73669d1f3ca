/**
 * Names for the client's shared chunks, so that a browser frame says what it points into
 * (`vendor-react-….js`, not `missing-error-component-….js` for React and the router because
 * rollup met that route first). Route chunks are not named here: they keep their route's name.
 * Decision: docs/decisions/0700-client-source-maps-and-debug-ids.md.
 *
 * The Sentry SDK is split in two: what reports errors, with the offline store (`vendor-sentry`),
 * and what only tracing uses (`sentry-tracing`). The first loads with app/monitoring/sdk-loader.ts
 * when the page needs the SDK, the second with tracing.ts only for a page view that is
 * traced. Decisions: docs/decisions/0830-*.md, 0910-*.md, 0950-*.md.
 */

// Package name → chunk, first match wins.
const VENDOR_CHUNKS: ReadonlyArray<readonly [RegExp, string]> = [
  // React with what only React uses: its scheduler and the external-store shim.
  [/^(react|react-dom|scheduler|use-sync-external-store)$/, 'vendor-react'],
  [/^@sentry(-internal)?\//, 'vendor-sentry'],
  [/^@tanstack\//, 'router'],
];

/**
 * The SDK's modules (@sentry/* 11.12) that only tracing needs: what rollup itself puts in the
 * lazily imported chunk when left to choose, listed because rollup, left to choose, would also
 * mix them with our own code (and a chunk's name says whether its frames are ours,
 * app/monitoring/in-app.ts). A module listed here that the errors-only part needs would make
 * `vendor-sentry` import `sentry-tracing` on every page that loads the SDK, and one missing
 * stays in `vendor-sentry`: tests/http/pre-hydration-scripts.test.ts checks both after an SDK
 * upgrade.
 */
const SENTRY_TRACING_MODULES: readonly RegExp[] = [
  /\/@sentry\/react\/build\/esm\/tanstackrouter\.js$/,
  // The SDK's Spotlight integration: loaded with app/monitoring/tracing.ts in development; it
  // needs the conventions' op module below.
  /\/@sentry\/browser\/build\/npm\/esm\/(prod|dev)\/(tracing\/.*|integrations\/(webVitals|spotlight)\.js)$/,
  /\/@sentry\/browser-utils\/build\/esm\/(performance\/.*|web-vitals\/(?!utils\.js$).*|instrumentation\/(performanceObserver|location)\.js|isBotUserAgent\.js|networkUtils\.js)$/,
  /\/@sentry\/core\/build\/esm\/(fetch|integrations\/spanStreaming|utils\/(traceData|tracePropagationTargets|lru)|tracing\/(idleSpan|sentrySpan|trace|sampling|measurement|logSpans|errors|segmentSpanCaptureStrategy|browserSpanApi|spans\/(spanBuffer|estimateSize|spanNames)))\.js$/,
  /\/@sentry\/conventions\/dist\/op\.mjs$/,
  // Google's web-vitals, which only the SDK's tracing (browser-utils' performance observers) uses.
  /\/node_modules\/web-vitals\//,
];

/** `build.rollupOptions.output.manualChunks` for the client build. */
export function clientChunkOf(id: string): string | undefined {
  const pkg = packageOf(id);
  if (pkg === undefined) return undefined;
  const path = id.replaceAll('\\', '/');
  if (SENTRY_TRACING_MODULES.some((module) => module.test(path))) return 'sentry-tracing';
  for (const [pattern, chunk] of VENDOR_CHUNKS) if (pattern.test(pkg)) return chunk;
  return 'vendor';
}

/** The package a module id belongs to (the last `node_modules/` in its path), if any. */
export function packageOf(id: string): string | undefined {
  const path = id.replaceAll('\\', '/');
  const at = path.lastIndexOf('/node_modules/');
  if (at === -1) return undefined;
  const [first, second] = path.slice(at + '/node_modules/'.length).split('/');
  if (!first) return undefined;
  return first.startsWith('@') && second ? `${first}/${second}` : first;
}

/** What rollup tells `output.chunkFileNames` about a chunk (the fields read here). */
export interface ChunkFacts {
  name: string;
  facadeModuleId: string | null;
  moduleIds: readonly string[];
}

/**
 * `build.rollupOptions.output.chunkFileNames` for the client build. Only a route's own chunk
 * (its code-split module is the chunk's facade) carries the route's name. The app's own code
 * (app/client.tsx, the router, the root and the route definitions) is shared by vinxi's entry
 * and the routes, so rollup puts it in a chunk of its own and names it after whatever module it
 * likes: `client`, beside the entry's `client`, or a route whose empty split it absorbed. That
 * chunk is called `app`.
 */
export function clientChunkFileName(chunk: ChunkFacts): string {
  const sharedAppCode =
    chunk.facadeModuleId === null &&
    chunk.moduleIds.some((id) => /(^|\/)app\/client\.tsx$/.test(id));
  return sharedAppCode ? 'assets/app-[hash].js' : 'assets/[name]-[hash].js';
}
