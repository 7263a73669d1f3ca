/** The process's tunnel, built once from serverConfig() on first use. */
import { serverConfig } from '#app/server/env.server';
import { storeReport } from '#app/server/inbox/inbox.server';
import { theInboxWriter } from '#app/server/inbox/inbox-writer.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { localInboxDsnOf } from '#app/server/monitoring-mode.server';
import { processShared } from '#app/server/process-shared.server';
import { createAllowList } from './allow-list';
import { createByteBudget } from './byte-budget';
import { createTunnel } from './tunnel.server';
import { tunnelLogKind } from './tunnel-messages';
import type { TunnelHandler } from './tunnel-options';
import { createUpstream } from './upstream.server';

/** Local envelopes being received, all together: 64 of the largest, or thousands of usual ones. */
export const LOCAL_INBOX_BUFFER_BYTES = 64 * 1024 * 1024;

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
    upstream: createUpstream(),
    // Every envelope is kept, as Sentry would receive it; /errors lists events and counts the rest.
    storeLocally: storeReport,
    localBuffer: createByteBudget(LOCAL_INBOX_BUFFER_BYTES),
    // Every line is one a client can cause: at most 20 a minute per status, then a summary.
    // DEBUG=tunnel asks for every line.
    log: config.tunnelDebug
      ? (line) => console.warn(line)
      : (line) => warnLimited(tunnelLogKind(line), line),
    debug: config.tunnelDebug,
  });
  // The first report of a local inbox server should not wait for the writer thread to boot.
  if (config.monitoring.kind === 'local-inbox') theInboxWriter().start();
  return tunnel;
}
