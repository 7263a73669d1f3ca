/**
 * The built server (loaded by ./node-server.entry.ts once source maps are on): the one place
 * where every request arrives, before nitro and TanStack Start. It reads as a request's path:
 * - the tunnel and /health are answered first, through the front doors `vinxi dev` uses too;
 * - security headers on every other response, then what is refused before nitro sees it
 *   (./request-triage.server.ts: paths, hosts, methods, hidden build files, server-function bodies);
 * - the inbox's read API, through its front door (../inbox/api/inbox-api.server.ts);
 * - files go to nitro's static handler with `Accept-Encoding` read as the RFC says
 *   (./public-files.server.ts), with `Cache-Control` by kind;
 * - pages and server-function calls wait for places of their own, and new pages are shed while
 *   the event loop lags (./admission.server.ts); a page that is the same for every visitor is
 *   answered from the page cache when it holds it, with no place (../page-cache/page-cache.server.ts);
 * - around it, the server's limits (./server-limits.server.ts), and from ../startup.server.ts
 *   the warm-up before it listens, the start lines and graceful shutdown.
 * Decisions: docs/decisions/0600-server-limits.md, 0601-load-shedding.md, 0604, 0820, 1030, 1300.
 */
import '#nitro-internal-pollyfills';
import { readFileSync } from 'node:fs';
import { Server } from 'node:http';
import { toNodeListener } from 'h3';
import { useNitroApp } from 'nitropack/runtime';
import { mayListen } from '#app/server/cluster/worker-link.server';
import { serverConfig } from '#app/server/env.server';
import { lagMonitor } from '#app/server/health/event-loop.server';
import { healthDoor, isShuttingDown, linkHealthToPrimary } from '#app/server/health/health.server';
import { inboxApiDoor } from '#app/server/inbox/api/inbox-api.server';
import { serveCachedPage, startPageCache } from '#app/server/page-cache/page-cache.server';
import { stampPeerAddress } from '#app/server/security/client-key';
import { baseSecurityHeaders } from '#app/server/security/security-headers.server';
import {
  handleShutdownSignals,
  listenAndAnnounce,
  openInboxAtStart,
  warmUp,
  warmUpPaths,
} from '#app/server/startup.server';
import { tunnelDoor } from '#app/server/tunnel/tunnel.server';
import { createRequestAdmission } from './admission.server';
import { cacheControlOf, listPublicFiles, negotiateEncoding } from './public-files.server';
import { pathOf, refuseEarly, requestKind } from './request-triage.server';
import { applyServerLimits, serverLimitsFor } from './server-limits.server';

// Not a React hook: nitro's accessor for the app its plugins have set up.
// biome-ignore lint/correctness/useHookAtTopLevel: a nitro runtime function named like a hook
const nitroApp = useNitroApp();
const config = serverConfig();
const app = toNodeListener(nitroApp.h3App);
const securityHeaders = baseSecurityHeaders(config.hsts);
// This runs in the built server entry; what nitro serves as files is beside it.
const publicFiles = listPublicFiles(new URL('../public', import.meta.url));
const limits = serverLimitsFor(config);
// Empty at every start, keyed by what this build was built from (decision 1300).
const admission = createRequestAdmission({
  maxOpenPages: limits.maxOpenPages,
  loadSheddingLagMs: config.loadSheddingLagMs,
});

const server = new Server(
  {
    headersTimeout: limits.headersTimeout,
    requestTimeout: limits.requestTimeout,
    connectionsCheckingInterval: limits.connectionsCheckingInterval,
  },
  (req, res) => {
    // While draining, every answer ends its connection (`handleShutdownSignals`).
    if (isShuttingDown()) res.shouldKeepAlive = false;
    // Who sent it, behind any trusted proxy, before anything counts it per client.
    stampPeerAddress(req, config.trustedProxies);
    // The browser SDK's reports and the load balancer's probe never wait behind pages.
    if (tunnelDoor(req, res)) return;
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    if (healthDoor(req, res)) return;
    const path = pathOf(req.url ?? '/');
    if (refuseEarly(req, res, path, publicFiles)) return;
    // The inbox's read API: indexed reads, no render, so it waits for no page's place (decision 1230).
    if (inboxApiDoor(req, res)) return;
    const kind = requestKind(req.method, path, publicFiles);
    // A default that a handler may override (Start's route headers would).
    res.setHeader('cache-control', cacheControlOf(path, kind === 'file' && publicFiles.has(path)));
    if (kind === 'file') {
      negotiateEncoding(req);
      app(req, res);
    } else if (kind === 'server-function') {
      admission.admitServerFunction(req, res, () => app(req, res));
    } else {
      admission.admitPage(
        req,
        res,
        () => app(req, res),
        () => serveCachedPage(req, res, path),
      );
    }
  },
);
applyServerLimits(server, limits, config);
handleShutdownSignals(server, nitroApp);
// Warm first, then listen: the port opens, and the start line is printed, once the inbox is open
// and the first pages render warm (with workers, once every worker is: mayListen); lag is judged
// from then on (`warmUp`, decision 1030).
const inboxProblem = openInboxAtStart(config);
void warmUp(nitroApp, warmUpPaths(config.monitoring.kind))
  .then(mayListen)
  .then(() => {
    if (isShuttingDown()) return;
    // After the warm-up: its renders warm the code visitors run, and fill no cache entry (a
    // visitor's first render does, as each test and operator expects of a fresh start).
    startPageCache({
      buildStamp: readBuildStamp(new URL('../build-stamp.json', import.meta.url)),
      maxBytes: config.pageCacheMaxBytes,
    });
    lagMonitor(config.loadSheddingLagMs).warm();
    listenAndAnnounce(server, config, inboxProblem);
    linkHealthToPrimary();
  });

/** The build's record of its sources (scripts/build-state.mjs); a build without one keys as one. */
function readBuildStamp(file: URL): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return 'no build stamp';
  }
}

export default {};
