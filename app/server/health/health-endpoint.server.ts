/**
 * GET /health over plain node:http: the built server's entry answers it before anything else
 * (app/server/node/node-server.server.ts), and the SSR router's hook answers it in `vinxi dev`
 * (app/server/ssr-middleware.server.ts). No page render, nothing logged or traced; why not a
 * router of its own: docs/decisions/0301-health-before-start.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serverConfig } from '#app/server/env.server';
import { lagMonitor } from '#app/server/node/event-loop-lag.server';
import { isShuttingDown } from '#app/server/node/shutdown-state.server';
import packageJson from '../../../package.json';
import { healthReport } from './health-report';
import { healthSignals } from './health-signals.server';

export function answerHealth(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, 405, JSON.stringify({ status: 'method not allowed' }), { allow: 'GET, HEAD' });
    return;
  }
  const config = serverConfig();
  const lag = lagMonitor(config.loadSheddingLagMs);
  const { httpStatus, report } = healthReport({
    version: packageJson.version,
    uptimeSeconds: process.uptime(),
    monitoring: config.monitoring.kind,
    lagMs: lag.lagMs(),
    shedding: lag.shedding(),
    shuttingDown: isShuttingDown(),
    troubles: healthSignals().reasons(),
  });
  send(res, httpStatus, JSON.stringify(report));
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
