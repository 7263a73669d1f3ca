/**
 * Development's error overlay, wired into `vinxi dev`'s client router (decision 0970): that
 * router's vite server serves the browser's modules, so it has their source maps, and its base
 * (`/_build/`) is where the overlay's requests go. The work is done by
 * app/server/failures/dev-failure.server.ts, loaded through vite like the rest of the server
 * code; this plugin only hands it the server and mounts it. `apply: 'serve'`: a build has none
 * of it.
 */
import type { Plugin, ViteDevServer } from 'vite';
import { processShared } from '../app/start-1.120/process-shared.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'dev-vite-server': { current?: ViteDevServer };
  }
}

export const DEV_ERRORS_PATH = '__dev-errors';
const HANDLER = '/app/server/failures/dev-failure.server.ts';

/** Where app/server/failures/dev-failure.server.ts finds the client router's vite server. */
export function devViteServer(): { current?: ViteDevServer } {
  return processShared('dev-vite-server', () => ({}));
}

export function devOverlay(): Plugin {
  return {
    name: 'dev-overlay',
    apply: 'serve',
    configureServer(server) {
      devViteServer().current = server;
      server.middlewares.use(`${server.config.base}${DEV_ERRORS_PATH}`, (req, res, next) => {
        server
          .ssrLoadModule(HANDLER)
          .then((handler) => handler.answerDevErrors(req, res))
          .catch(next);
      });
    },
  };
}
