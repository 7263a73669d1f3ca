import { resolve } from 'node:path';
import { defineConfig } from '@tanstack/react-start/config';

export default defineConfig({
  tsr: { appDirectory: 'app' },
  // Hooks that answer before Start renders anything (GET /health).
  routers: { ssr: { middleware: './app/server/ssr-middleware.server.ts' } },
  server: {
    preset: 'node-server',
    // Parse the environment once at start; a bad value stops the server (see env.server.ts).
    plugins: [resolve('app/server/startup.server.ts')],
  },
});
