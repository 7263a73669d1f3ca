/** The process's tunnel, built once from serverConfig() on first use. */
import { serverConfig } from '../env.server';
import { localInbox } from '../inbox/inbox.server';
import { localInboxDsnOf } from '../monitoring-mode.server';
import { createAllowList } from './allow-list';
import { createTunnel, type TunnelHandler } from './tunnel';
import { createUpstream } from './upstream';

let tunnel: TunnelHandler | undefined;

export function theTunnel(): TunnelHandler {
  if (tunnel) return tunnel;
  const config = serverConfig();
  tunnel = createTunnel({
    allowList: createAllowList(config.tunnelAllowedDsns, localInboxDsnOf(config)),
    maxBytes: config.tunnelMaxBytes,
    timeoutMs: config.tunnelTimeoutMs,
    bodyTimeoutMs: config.tunnelBodyTimeoutMs,
    upstream: createUpstream(),
    // Every envelope is kept, as Sentry would receive it; /errors lists events and counts the rest.
    storeLocally: (envelope) => localInbox().append(envelope),
    log: (line) => console.warn(line),
    debug: config.tunnelDebug,
  });
  return tunnel;
}
