/**
 * A nitro plugin: in the built server, POST /monitoring skips nitro's per-request work
 * (async context, request hooks, route rules, static assets), which cost the tunnel about a
 * third of its throughput under load (docs/decisions/0102-tunnel-fast-path.md). Requests for
 * exactly /monitoring go straight to the tunnel; everything else takes the usual way.
 * `vinxi dev` hands plugins a dev server without `h3App`: there the http router serves the tunnel.
 */
import { theTunnel } from './tunnel-instance.server';
import { isTunnelPath } from './tunnel-path';

interface NodeEvent {
  node: { req: import('node:http').IncomingMessage; res: import('node:http').ServerResponse };
}

interface NitroAppLike {
  h3App?: { handler: (event: NodeEvent) => unknown };
}

export default function tunnelFastPath(nitroApp: NitroAppLike): void {
  const app = nitroApp.h3App;
  if (!app) return;
  const next = app.handler;
  app.handler = (event) =>
    isTunnelPath(event.node.req.url ?? '')
      ? theTunnel()(event.node.req, event.node.res)
      : next(event);
}
