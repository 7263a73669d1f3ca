/**
 * The vinxi `http` router at /monitoring (see app.config.ts): thin glue between h3 and the
 * framework-free tunnel in ./tunnel.server.ts. It serves the tunnel in `vinxi dev`; in the built
 * server the entry (app/server/node/node-server.server.ts) answers first (docs/decisions/0102).
 * The router prefix-matches, so anything but exactly /monitoring is handed back: returning
 * nothing lets h3 go on to the app, which answers 404.
 */
import { eventHandler } from 'vinxi/http';
import { isTunnelPath, theTunnel } from '#app/server/tunnel/tunnel-instance.server';

export default eventHandler((event) => {
  const { req, res } = event.node;
  // h3 strips the router's base from req.url; originalUrl is the path as the client sent it.
  if (!isTunnelPath(req.originalUrl ?? req.url ?? '')) return;
  // Ours from here: h3 must not go on to the app while the tunnel streams.
  (event as unknown as { _handled: boolean })._handled = true;
  return theTunnel()(req, res);
});
