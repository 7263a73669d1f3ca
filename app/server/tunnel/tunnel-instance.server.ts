/**
 * The tunnel's one front door, for the built server's entry and the /monitoring router of
 * `vinxi dev` (app/start-1.120/dev-tunnel-router.server.ts): the one path it answers
 * (/monitoring) and the process's tunnel, built once from serverConfig().
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { workerShareOf } from '#app/server/cluster/worker-count.server';
import { serverConfig } from '#app/server/env.server';
import { localInbox, storeReport } from '#app/server/inbox/store/local-inbox.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { localInboxDsnOf } from '#app/server/site-config.server';
import { processShared } from '#app/start-1.120/process-shared.server';
import { createAllowList } from './allow-list';
import {
  CLIENT_RATE_LIMITS,
  createByteBudget,
  createClientRate,
  createClientSlots,
  localBufferLimits,
} from './client-limits';
import { createUpstream, POOL_SOCKETS } from './forward-to-sentry.server';
import { createTunnel, type TunnelHandler, tunnelLogKind } from './tunnel.server';

/**
 * Envelopes one client may have streaming to Sentry at once: an eighth of the streaming pool
 * (forward-to-sentry.server.ts), so it takes 8 clients to hold it, and none can hold the whole pool.
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

/** The tunnel answers at exactly this path; the router's prefix match also sends /monitoringX and /monitoring/x. */
export const TUNNEL_PATH = '/monitoring';

/** Whether a raw request URL (path and query, as received) is the tunnel. */
export function isTunnelPath(rawUrl: string): boolean {
  if (!rawUrl.startsWith(TUNNEL_PATH)) return false;
  const next = rawUrl.charCodeAt(TUNNEL_PATH.length);
  // End of string, '?' or '#'.
  return Number.isNaN(next) || next === 0x3f || next === 0x23;
}

/**
 * Answers the request if it is the tunnel's, and says whether it did. `rawUrl` is the path and
 * query as the client sent them (a router that strips its base keeps them in `originalUrl`).
 * The tunnel answers on the Node response itself, streaming; nothing waits for it.
 */
export function tunnelDoor(
  req: IncomingMessage,
  res: ServerResponse,
  rawUrl = req.url ?? '',
): boolean {
  if (!isTunnelPath(rawUrl)) return false;
  void theTunnel()(req, res);
  return true;
}
