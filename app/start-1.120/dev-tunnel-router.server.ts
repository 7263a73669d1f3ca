/**
 * `vinxi dev`'s /monitoring router (an `http` router, see app.config.ts): glue to the tunnel's
 * one front door (app/server/tunnel/tunnel.server.ts), which the built server's entry
 * calls too. The router prefix-matches, so anything but exactly /monitoring is handed back:
 * returning nothing lets h3 go on to the app, which answers 404.
 */
import { eventHandler } from 'vinxi/http';
import { tunnelDoor } from '#app/server/tunnel/tunnel.server';

export default eventHandler((event) => {
  const { req, res } = event.node;
  // h3 strips the router's base from req.url; originalUrl is the path as the client sent it.
  // Answered on the Node response: h3's private `_handled` keeps it from going on to the app.
  if (tunnelDoor(req, res, req.originalUrl ?? req.url ?? ''))
    (event as unknown as { _handled: boolean })._handled = true;
});
