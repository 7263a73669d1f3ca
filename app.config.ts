import { resolve } from 'node:path';
import { sentryVitePlugin } from '@sentry/vite-plugin';
import { defineConfig } from '@tanstack/react-start/config';
import { clientChunkFileName, clientChunkOf } from './build/client-chunks';
import { inputSourceMaps } from './build/input-source-maps';
import { moveSourceMaps } from './build/move-source-maps';
import { sentryBuildOptions } from './build/sentry-build-options';

// Server stacks name our TypeScript: vite writes maps for the server routers, nitro reads them
// and writes maps of its own, the entry turns Node's support on (docs/decisions/0701-*.md).
const serverRouterVite = { build: { sourcemap: true } };

export default defineConfig({
  tsr: { appDirectory: 'app' },
  // Hooks that answer before Start renders anything (GET /health).
  routers: {
    ssr: { middleware: './app/server/ssr-middleware.server.ts', vite: serverRouterVite },
    // Unknown server function ids answered 404 before Start's handler logs its manifest.
    server: {
      middleware: './app/server/server-functions/server-fn-middleware.server.ts',
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
          },
        },
        plugins: [sentryVitePlugin(sentryBuildOptions())],
      },
    },
  },
  server: {
    preset: 'node-server',
    sourceMap: true,
    rollupConfig: { plugins: [inputSourceMaps()] },
    // Our own entry in place of nitro's: server limits, load shedding, security headers, the
    // tunnel and /health ahead of everything, graceful shutdown (docs/decisions/0600-*.md).
    entry: resolve('app/server/node/node-server.entry.ts'),
    // Parse the environment once at start; a bad value stops the server (see env.server.ts).
    plugins: [
      resolve('app/server/startup.server.ts'),
      // Failure reports still on their way get a moment at shutdown.
      resolve('app/server/failures/flush-on-close.server.ts'),
      // Inbox writes still on their way are finished before the process exits.
      resolve('app/server/inbox/settle-writes-on-close.server.ts'),
    ],
  },
}).then((app) => {
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
  });
  // The Sentry tunnel at exactly /monitoring: Start's API routes live under /api, and a raw
  // http router hands us Node's request for streaming (docs/decisions/0100-tunnel-http-router.md).
  return app.addRouter({
    name: 'monitoring-tunnel',
    type: 'http',
    target: 'server',
    base: '/monitoring',
    handler: 'app/server/tunnel/http-router.server.ts',
    plugins: () => [{ name: 'tunnel-source-maps', config: () => serverRouterVite }],
  });
});
