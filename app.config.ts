import { basename, join, resolve } from 'node:path';
import { sentryVitePlugin } from '@sentry/vite-plugin';
import { defineConfig } from '@tanstack/react-start/config';
import type { Plugin } from 'vite';
import { clientChunkFileName, clientChunkOf } from './build/client-chunks';
import { compactServerSourceMaps } from './build/compact-source-maps';
import { devOverlay } from './build/dev-overlay';
import { importAliases } from './build/import-aliases';
import { inlineScripts } from './build/inline-scripts';
import { inputSourceMaps } from './build/input-source-maps';
import { quietKnownWarnings } from './build/known-warnings';
import { moveSourceMaps } from './build/move-source-maps';
import { precompressPublicFiles } from './build/precompress-public-files';
import { sentryBuildOptions } from './build/sentry-build-options';
import { buildServerSideFiles } from './build/server-side-files';
import { sourceHashes, writeBuildStamp } from './scripts/build-state.mjs';
import { devAddress, hmrHost, portInUseMessage } from './scripts/dev-address.mjs';

// `vinxi dev` runs the server code in this process, through vite with inline maps: with Node's
// source maps on, dev stacks name our TypeScript lines as the built server's do. Without it they
// point into vite's transformed code, lines off (decision 0701).
process.setSourceMapsEnabled(true);

// Server stacks name our TypeScript: vite writes maps for the server routers, nitro reads them
// and writes maps of its own, the entry turns Node's support on (docs/decisions/0701-*.md).
const serverRouterVite = {
  build: { sourcemap: true, rollupOptions: { onwarn: quietKnownWarnings } },
};
// `#app/…` imports (build/import-aliases.ts): every Start router gets this from the top-level
// `vite` below; the tunnel's own router is given it with its plugins.
// Also in development, vite's HMR sockets (one per router, on random ports) listen where the dev
// server does, not on every address (scripts/dev-address.mjs, decision 0960).
const aliasVite = {
  resolve: { alias: importAliases },
  server: { hmr: { host: hmrHost(devAddress(process.env).host) } },
};
/**
 * The client's dependencies that `vinxi dev` found only on a first visit (the SDK's on the first
 * error): listed, vite pre-bundles them at start. Its log names any it finds later.
 */
const CLIENT_DEPENDENCIES = [
  '@tanstack/react-start',
  '@tanstack/react-start/server-functions-client',
  '@tanstack/react-router',
  'react-dom/client',
  'valibot',
  '@sentry/core',
  '@sentry/browser',
  '@sentry/react',
] as const;
/**
 * `DEV_CACHE_DIR` gives `vinxi dev` a dependency cache of its own, one folder per router, in
 * place of the shared `node_modules/.vinxi/cache/<router>` that vinxi sets: the test of a first
 * visit needs a cold one (tests/e2e/dev-first-visit.spec.ts). Last, to win over vinxi's.
 */
const ownDevCache: Plugin = {
  name: 'own-dev-cache',
  enforce: 'post',
  apply: 'serve',
  config: (config) => {
    const dir = process.env.DEV_CACHE_DIR;
    return dir ? { cacheDir: join(resolve(dir), basename(config.cacheDir ?? 'vite')) } : undefined;
  },
};
// `?inline-script` imports (build/inline-scripts.ts): the recorder in the document head.
const startVite = { ...aliasVite, plugins: [inlineScripts(), ownDevCache] };

export default defineConfig({
  tsr: { appDirectory: 'app' },
  vite: startVite,
  // Under `vinxi dev`, what the built server's entry answers before any router (the tunnel,
  // /health, the inbox's read API) is answered before Start renders anything.
  routers: {
    ssr: { middleware: './app/start-1.120/dev-front-door.server.ts', vite: serverRouterVite },
    // Unknown server function ids answered 404 before Start's handler logs its manifest.
    server: {
      middleware: './app/start-1.120/server-function-calls.server.ts',
      vite: serverRouterVite,
    },
    // Maps for every chunk, never referenced from it, with a Sentry debug ID in both; shared
    // chunks named for what they hold (docs/decisions/0700-client-source-maps-and-debug-ids.md).
    client: {
      vite: {
        build: {
          sourcemap: 'hidden',
          rollupOptions: {
            output: { manualChunks: clientChunkOf, chunkFileNames: clientChunkFileName },
            // Only warnings someone can act on (build/known-warnings.ts).
            onwarn: quietKnownWarnings,
          },
        },
        // In development only, the error overlay's server half (build/dev-overlay.ts).
        plugins: [sentryVitePlugin(sentryBuildOptions()), devOverlay()],
        // In development, what the pages import is pre-bundled at start: found on the first
        // visit instead, it made vite reload the page twice ("optimized dependencies changed").
        optimizeDeps: { include: [...CLIENT_DEPENDENCIES] },
      },
    },
  },
  server: {
    preset: 'node-server',
    alias: importAliases,
    sourceMap: true,
    // The maps keep our sources' text: server events show the lines around each of our frames
    // from it (decision 1110). nitro leaves it out by default.
    rollupConfig: { plugins: [inputSourceMaps()], output: { sourcemapExcludeSources: false } },
    // Our own entry in place of nitro's: server limits, load shedding, security headers, the
    // tunnel and /health ahead of everything, graceful shutdown (docs/decisions/0600-*.md).
    entry: resolve('app/server/node/node-server.entry.ts'),
    // nitro's error answer, with its log line rate-limited (app/start-1.120/request-errors.server.ts).
    errorHandler: resolve('app/start-1.120/request-errors.server.ts'),
    // Parse the environment once at start (a bad value stops the server, see env.server.ts);
    // at shutdown, reports still on their way get a moment (app/server/startup.server.ts).
    plugins: [resolve('app/server/startup.server.ts')],
  },
}).then((app) => {
  // The build says what it was built from, so `npm start` and the tests rebuild only when a
  // source's content changed (scripts/build-state.mjs). Hashed before, written after.
  let hashes: Record<string, string> | undefined;
  app.hooks.hook('app:build:start', () => {
    hashes = sourceHashes();
  });
  app.hooks.hook('app:build:end', () => {
    if (hashes) writeBuildStamp(hashes);
  });
  // After vinxi copied the routers' output into .output/public, before nitro builds: no map is
  // ever served (the server's 404 for `.map` paths is the second line of defence).
  app.hooks.hook('app:build:nitro:assets:copy:end', ({ nitro }) => {
    const { moved, removed } = moveSourceMaps(
      nitro.options.output.publicDir,
      resolve(nitro.options.output.dir, 'sourcemaps/client'),
      '/_build',
    );
    console.log(
      `[source maps] ${moved.length} client maps moved to .output/sourcemaps/client, ${removed.length} server router maps removed from .output/public`,
    );
    // Last, once only what visitors may fetch is left: a .br and a .gz beside each text file,
    // for nitro's static handler to pick by Accept-Encoding. nitro's own compressPublicAssets
    // stays off: it runs before vinxi removes the server routers' code from .output/public and
    // would publish that code (docs/decisions/0820-precompressed-assets.md).
    const { files, bytes } = precompressPublicFiles(nitro.options.output.publicDir);
    console.log(
      `[precompressed] ${files.length} public files: ${bytes.identity} bytes → brotli ${bytes.br}, gzip ${bytes.gzip}`,
    );
  });
  // `npm run dev` tried the port first (scripts/dev.mjs); if another server took it since,
  // listhen has moved to a port of 3000-3100 by now: stop, as `npm start` would.
  app.hooks.hook(
    'app:dev:server:listener:created',
    ({ listener }: { listener: { address?: { port?: number } } }) => {
      const wanted = devAddress(process.env);
      if (wanted.port === 0 || listener.address?.port === wanted.port) return;
      console.error(portInUseMessage(wanted));
      process.exit(1);
    },
  );
  // The inbox's ingest thread and the cluster's primary run from files of their own
  // (build/server-side-files.ts).
  app.hooks.hook('app:build:nitro:end', async ({ nitro }) => {
    await buildServerSideFiles(nitro.options.output.serverDir);
    // Last, once every server map is written: the server keeps them decoded (decision 0701).
    const { files, mappings } = compactServerSourceMaps(nitro.options.output.serverDir);
    console.log(
      `[source maps] ${files} server maps without repeated mappings: ${mappings[0]} → ${mappings[1]}`,
    );
  });
  return app;
});
