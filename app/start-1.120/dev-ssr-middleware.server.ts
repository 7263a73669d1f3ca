/**
 * `vinxi dev`'s hook on the SSR router (wired in app.config.ts), run before TanStack Start: glue
 * to the front doors of /health (app/server/health/health.server.ts) and of the inbox's read API
 * (app/server/inbox/api/inbox-api.server.ts), which the built server's entry calls before any
 * router.
 */
import { defineMiddleware } from 'vinxi/http';
import { healthDoor } from '#app/server/health/health.server';
import { inboxApiDoor } from '#app/server/inbox/api/inbox-api.server';

export default defineMiddleware({
  onRequest: (event) => {
    // Answered on the Node response: h3's private `_handled` keeps it from writing again.
    if (
      healthDoor(event.node.req, event.node.res, event.path) ||
      inboxApiDoor(event.node.req, event.node.res)
    )
      (event as unknown as { _handled: boolean })._handled = true;
  },
});
