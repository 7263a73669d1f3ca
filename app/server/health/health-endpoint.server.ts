/**
 * GET /health, answered before TanStack Start sees the request: no page render, no
 * server function, nothing logged or traced. Wired as an onRequest hook of the SSR
 * router (app/server/ssr-middleware.server.ts); why not a router of its own:
 * docs/decisions/0301-health-before-start.md.
 */
import { type H3Event, send, setResponseHeader, setResponseStatus } from 'vinxi/http';
import packageJson from '../../../package.json';
import { serverConfig } from '../env.server';
import { healthReport, isHealthPath } from './health-report';

/** Answers /health and marks the request handled; leaves every other request alone. */
export async function answerHealth(event: H3Event): Promise<void> {
  if (!isHealthPath(event.path)) return;
  setResponseHeader(event, 'Cache-Control', 'no-store');
  if (event.method !== 'GET' && event.method !== 'HEAD') {
    setResponseStatus(event, 405);
    setResponseHeader(event, 'Allow', 'GET, HEAD');
    await send(event, JSON.stringify({ status: 'method not allowed' }), 'application/json');
    return;
  }
  const report = healthReport(
    packageJson.version,
    process.uptime(),
    serverConfig().monitoring.kind,
  );
  await send(event, JSON.stringify(report), 'application/json');
}
