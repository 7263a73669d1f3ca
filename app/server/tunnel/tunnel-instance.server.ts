/** The process's tunnel, built once from serverConfig() on first use. */
import { workerShareOf } from '#app/server/cluster/worker-count';
import { serverConfig } from '#app/server/env.server';
import { localInbox, storeReport } from '#app/server/inbox/store/local-inbox.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { localInboxDsnOf } from '#app/server/monitoring-mode.server';
import { processShared } from '#app/server/process-shared.server';
import { createAllowList } from './allow-list';
import { createByteBudget, localBufferLimits } from './byte-budget';
import { CLIENT_RATE_LIMITS, createClientRate } from './client-rate';
import { createClientSlots } from './client-share';
import { createTunnel } from './tunnel.server';
import { tunnelLogKind } from './tunnel-messages';
import type { TunnelHandler } from './tunnel-options';
import { createUpstream, POOL_SOCKETS } from './upstream.server';

/**
 * Envelopes one client may have streaming to Sentry at once: an eighth of the streaming pool
 * (upstream.server.ts), so it takes 8 clients to hold it, and none can hold the whole pool.
 */
export const STREAMING_FORWARDS_PER_CLIENT = 8;

export function theTunnel(): TunnelHandler {
  // One per process: the built server's entry and the /monitoring router each hold a copy of
  // this module, and the receive budget and Sentry connections are meant to be the process's.
  return processShared('tunnel', createTheTunnel);
}

function createTheTunnel(): TunnelHandler {
  const config = serverConfig();
  const tunnel = createTunnel({
    allowList: createAllowList(config.tunnelAllowedDsns, localInboxDsnOf(config)),
    maxBytes: config.tunnelMaxBytes,
    timeoutMs: config.tunnelTimeoutMs,
    bodyTimeoutMs: config.tunnelBodyTimeoutMs,
    // The server's connections to Sentry and its receive buffer, this worker's share of them.
    upstream: createUpstream(workerShareOf(POOL_SOCKETS, config.workers)),
    // Every envelope is kept, as Sentry would receive it; /errors lists events and counts the rest.
    storeLocally: storeReport,
    localBuffer: createByteBudget(localBufferLimits(config.tunnelMaxBytes, config.workers)),
    streamingForwards: createClientSlots(STREAMING_FORWARDS_PER_CLIENT),
    localRate: createClientRate(CLIENT_RATE_LIMITS, Date.now),
    // Every line is one a client can cause: at most 20 a minute per status, then a summary.
    // DEBUG=tunnel asks for every line.
    log: config.tunnelDebug
      ? (line) => console.warn(line)
      : (line) => warnLimited(tunnelLogKind(line), line),
    logLimited: warnLimited,
    debug: config.tunnelDebug,
  });
  // The first report of a local inbox server should not wait for the ingest thread to boot.
  if (config.monitoring.kind === 'local-inbox' && !localInbox().problem()) {
    localInbox().ingestThread().start();
  }
  return tunnel;
}
