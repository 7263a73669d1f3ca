/**
 * The vinxi `http` router at /monitoring (see app.config.ts): thin glue between h3 and the
 * framework-free tunnel in ./tunnel.ts. The router prefix-matches, so anything but exactly
 * /monitoring is handed back (returning nothing lets h3 go on to the app, which answers 404).
 */
import { eventHandler } from 'vinxi/http';
import { LOCAL_INBOX_DSN } from '../../monitoring/local-dsn';
import { serverConfig } from '../env.server';
import { localInbox } from '../inbox/inbox.server';
import { createAllowList } from './allow-list';
import { createTunnel, type TunnelHandler } from './tunnel';
import { isTunnelPath } from './tunnel-path';
import { createUpstream } from './upstream';

let tunnel: TunnelHandler | undefined;

function theTunnel(): TunnelHandler {
  if (tunnel) return tunnel;
  const config = serverConfig();
  tunnel = createTunnel({
    allowList: createAllowList(config.tunnelAllowedDsns, LOCAL_INBOX_DSN),
    maxBytes: config.tunnelMaxBytes,
    timeoutMs: config.tunnelTimeoutMs,
    upstream: createUpstream(),
    storeLocally: (envelope) => localInbox().append(envelope),
    log: (line) => console.warn(line),
    debug: config.tunnelDebug,
  });
  return tunnel;
}

export default eventHandler((event) => {
  const { req, res } = event.node;
  // h3 strips the router's base from req.url; originalUrl is the path as the client sent it.
  if (!isTunnelPath(req.originalUrl ?? req.url ?? '')) return;
  // Ours from here: h3 must not go on to the app while the tunnel streams.
  (event as unknown as { _handled: boolean })._handled = true;
  return theTunnel()(req, res);
});
