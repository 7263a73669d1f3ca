/**
 * `vinxi dev`'s hook on the SSR router (wired in app.config.ts), run before TanStack Start: glue
 * to /health's one front door (app/server/health/health.server.ts), which the built server's
 * entry calls before any router.
 */
import { defineMiddleware } from 'vinxi/http';
import { healthDoor } from '#app/server/health/health.server';

export default defineMiddleware({
  onRequest: (event) => {
    // Answered on the Node response: h3's private `_handled` keeps it from writing again.
    if (healthDoor(event.node.req, event.node.res, event.path))
      (event as unknown as { _handled: boolean })._handled = true;
  },
});
