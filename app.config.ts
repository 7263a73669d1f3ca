import { resolve } from 'node:path';
import { defineConfig } from '@tanstack/react-start/config';

export default defineConfig({
  tsr: { appDirectory: 'app' },
  // Hooks that answer before Start renders anything (GET /health).
  routers: {
    ssr: { middleware: './app/server/ssr-middleware.server.ts' },
    // Unknown server function ids answered 404 before Start's handler logs its manifest.
    server: { middleware: './app/server/server-functions/server-fn-middleware.server.ts' },
  },
  server: {
    preset: 'node-server',
    // Our own entry in place of nitro's: server limits, load shedding, security headers, the
    // tunnel and /health ahead of everything, graceful shutdown (docs/decisions/0600-*.md).
    entry: resolve('app/server/node/node-server.entry.ts'),
    // Parse the environment once at start; a bad value stops the server (see env.server.ts).
    plugins: [
      resolve('app/server/startup.server.ts'),
      // Failure reports still on their way get a moment at shutdown.
      resolve('app/server/failures/flush-on-close.server.ts'),
    ],
  },
}).then((app) =>
  // The Sentry tunnel at exactly /monitoring: Start's API routes live under /api, and a raw
  // http router hands us Node's request for streaming (docs/decisions/0100-tunnel-http-router.md).
  app.addRouter({
    name: 'monitoring-tunnel',
    type: 'http',
    target: 'server',
    base: '/monitoring',
    handler: 'app/server/tunnel/http-router.server.ts',
  }),
);
