/**
 * `vinxi dev`'s one front door: the SSR router's hook (wired in app.config.ts), run before
 * TanStack Start. It answers what the built server's entry answers before any router, through
 * the same doors: the tunnel at exactly /monitoring (app/server/tunnel/tunnel.server.ts),
 * /health (app/server/health/health.server.ts) and the inbox's read API
 * (app/server/inbox/api/inbox-api.server.ts). Anything else, /monitoring/… included, goes on to
 * the app.
 */
import { defineMiddleware } from 'vinxi/http';
import { healthDoor } from '#app/server/health/health.server';
import { inboxApiDoor } from '#app/server/inbox/api/inbox-api.server';
import { tunnelDoor } from '#app/server/tunnel/tunnel.server';

export default defineMiddleware({
  onRequest: (event) => {
    const { req, res } = event.node;
    // Answered on the Node response: h3's private `_handled` keeps it from writing again.
    if (
      tunnelDoor(req, res, event.path) ||
      healthDoor(req, res, event.path) ||
      inboxApiDoor(req, res)
    )
      (event as unknown as { _handled: boolean })._handled = true;
  },
});
