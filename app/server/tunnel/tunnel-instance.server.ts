/** The process's tunnel, built once from serverConfig() on first use. */
import { LOCAL_INBOX_DSN } from '../../monitoring/local-dsn';
import { serverConfig } from '../env.server';
import { localInbox } from '../inbox/inbox.server';
import { createAllowList } from './allow-list';
import { keptInLocalInbox } from './local-inbox-policy';
import { createTunnel, type TunnelHandler } from './tunnel';
import { createUpstream } from './upstream';

let tunnel: TunnelHandler | undefined;

export function theTunnel(): TunnelHandler {
  if (tunnel) return tunnel;
  const config = serverConfig();
  tunnel = createTunnel({
    allowList: createAllowList(config.tunnelAllowedDsns, LOCAL_INBOX_DSN),
    maxBytes: config.tunnelMaxBytes,
    timeoutMs: config.tunnelTimeoutMs,
    upstream: createUpstream(),
    // Spans, sessions and client reports are answered but not kept (see local-inbox-policy.ts).
    storeLocally: async (envelope) => {
      if (keptInLocalInbox(envelope)) await localInbox().append(envelope);
    },
    log: (line) => console.warn(line),
    debug: config.tunnelDebug,
  });
  return tunnel;
}
