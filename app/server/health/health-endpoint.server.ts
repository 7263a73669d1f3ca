/**
 * GET /health over plain node:http: the built server's entry answers it before anything else
 * (app/server/node/node-server.server.ts), and the SSR router's hook answers it in `vinxi dev`
 * (app/start-1.120/dev-ssr-middleware.server.ts). No page render, nothing logged or traced; why not a
 * router of its own: docs/decisions/0301-health-before-start.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serverHealthOf } from '#app/server/cluster/server-health';
import { serverHealthView, thisWorker } from '#app/server/cluster/worker-link.server';
import { serverConfig } from '#app/server/env.server';
import { lagMonitor } from '#app/server/node/event-loop-lag.server';
import { isShuttingDown } from '#app/server/node/shutdown-state.server';
import packageJson from '../../../package.json';
import { healthReport, ownReasons } from './health-report';
import { healthSignals } from './health-signals.server';

export function answerHealth(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, 405, JSON.stringify({ status: 'method not allowed' }), { allow: 'GET, HEAD' });
    return;
  }
  const config = serverConfig();
  const own = thisProcessReasons();
  // A worker answers for the server: the others' troubles come through the primary.
  const worker = thisWorker();
  const view = serverHealthView();
  const server =
    worker === undefined
      ? { reasons: own, workers: { up: 1, of: 1 } }
      : serverHealthOf({ worker, reasons: own }, view, config.workers);
  const { httpStatus, report } = healthReport({
    version: packageJson.version,
    // The server's, not this worker's: a worker started again is not a server started again.
    uptimeSeconds: view ? (Date.now() - view.startedAt) / 1000 : process.uptime(),
    monitoring: config.monitoring.kind,
    lagMs: lagMonitor(config.loadSheddingLagMs).lagMs(),
    shuttingDown: isShuttingDown(),
    ...server,
  });
  send(res, httpStatus, JSON.stringify(report));
}

/** This process's own troubles, as /health lists them (and a worker reports to the primary). */
export function thisProcessReasons(): string[] {
  const lag = lagMonitor(serverConfig().loadSheddingLagMs);
  return ownReasons({
    troubles: healthSignals().reasons(),
    shedding: lag.shedding(),
    lagMs: lag.lagMs(),
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...extra,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
