/**
 * Request hooks of the SSR router (the one that serves every page): each runs before
 * TanStack Start and may answer the request itself. Wired in app.config.ts. In the built
 * server the entry (app/server/node/node-server.server.ts) answers /health before any router;
 * this hook serves it in `vinxi dev`.
 */
import { defineMiddleware, type H3Event } from 'vinxi/http';
import { answerHealth, isHealthPath } from '#app/server/health/health.server';

function health(event: H3Event): void {
  if (!isHealthPath(event.path)) return;
  answerHealth(event.node.req, event.node.res);
  // Answered on the Node response: h3 must not write again.
  (event as unknown as { _handled: boolean })._handled = true;
}

export default defineMiddleware({
  onRequest: [health],
});
