/**
 * The built server: the one place where every request arrives, before nitro and TanStack Start.
 */
import '#nitro-internal-pollyfills';
import { readdirSync, readFileSync } from 'node:fs';
import { Server, type ServerResponse } from 'node:http';
import { findSourceMap } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { toNodeListener } from 'h3';
import Negotiator from 'negotiator';
import { useNitroApp } from 'nitropack/runtime';
import { trapUnhandledNodeErrors } from 'nitropack/runtime/internal/utils';
import { workerShareOf } from '#app/server/cluster/worker-count';
import { linkToPrimary, thisWorker } from '#app/server/cluster/worker-link.server';
import { serverConfig } from '#app/server/env.server';
import { bodyLimitRefusal, refusalLogLine } from '#app/server/failures/server-function-failures';
import {
  answerHealth,
  healthSignals,
  isHealthPath,
  thisProcessReasons,
} from '#app/server/health/health.server';
import { localInbox, prepareInboxAtStart } from '#app/server/inbox/store/local-inbox.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import {
  describeInboxAccess,
  describeMonitoring,
  describeSpotlight,
} from '#app/server/monitoring-mode.server';
import { isVariantRequest } from '#app/server/node/public-files.server';
import { clientKeyOf } from '#app/server/security/client-address';
import { baseSecurityHeaders } from '#app/server/security/security-headers.server';
import { createClientSlots } from '#app/server/tunnel/client-limits';
import { isTunnelPath, theTunnel } from '#app/server/tunnel/tunnel-instance.server';
import { SERVER_FUNCTION_BASE, serverFunctionIdOf } from '#app/start-1.120/server-function-calls';
import { createAdmission } from './admission';
import { hostRefusal, isHiddenBuildFile, pathRefusal, REFUSED_METHODS } from './entry-refusals';
import { handleShutdownSignals, isShuttingDown } from './graceful-shutdown.server';
import { lagMonitor, requestKind, SHED_RETRY_AFTER_SECONDS } from './load-shedding.server';
import { stampPeerAddress } from './peer-address';
import { cacheControlOf, listPublicFiles } from './public-files.server';
import {
  CONCURRENT_RENDERS,
  CONCURRENT_SERVER_FUNCTION_CALLS,
  descriptorLimitOf,
  MAX_RENDER_WAIT_MS,
  MAX_WAITING_RENDERS,
  RENDER_TURN_BUDGET_MS,
  SERVER_FUNCTION_CALLS_PER_CLIENT,
  SERVER_FUNCTION_TURN_BUDGET_MS,
  serverLimits,
  shareConnections,
} from './server-limits.server';

/**
 * The built server (loaded by ./node-server.entry.ts once source maps are on): the one
 * place where every request arrives, before nitro and TanStack Start. It owns what nitro's
 * entry leaves at Node's defaults:
 * - the server's limits: timeouts and a connection cap shared fairly between clients
 *   (./server-limits.server.ts);
 * - what never waits behind pages: the tunnel and /health are answered first;
 * - load shedding: new page requests get a fast 503 while the event loop lags;
 * - admission: pages and server-function calls each wait for a place of their own
 *   (./admission.ts); a page gives its render place back once its shell is sent;
 * - security headers on every response but the tunnel's; the vite manifest is not served;
 * - `Cache-Control` by kind (./cache-policy.ts), and `Accept-Encoding` read as the RFC says
 *   before nitro's static handler picks a precompressed file by it;
 * - server function bodies are bounded before anything reads them (../server-function-calls/body-limit.ts);
 * - a port already in use is one line and exit code 1; the monitoring lines follow listening;
 * - graceful shutdown that lets in-flight requests finish (./graceful-shutdown.server.ts).
 * Decisions: docs/decisions/0600-server-limits.md, 0601-load-shedding.md,
 * 0820-precompressed-assets.md.
 */
// Not a React hook: nitro's accessor for the app its plugins have set up.
// biome-ignore lint/correctness/useHookAtTopLevel: a nitro runtime function named like a hook
const nitroApp = useNitroApp();
const config = serverConfig();
const app = toNodeListener(nitroApp.h3App);
const lag = lagMonitor(config.loadSheddingLagMs);
const securityHeaders = baseSecurityHeaders(config.hsts);
const tunnel = theTunnel();
// The entry is .output/server/index.mjs; what nitro serves as files is beside it.
const publicFiles = listPublicFiles(fileURLToPath(new URL('../public', import.meta.url)));

const limits = serverLimits({
  descriptorLimit: readDescriptorLimit(),
  tunnelBodyTimeoutMs: config.tunnelBodyTimeoutMs,
  tunnelTimeoutMs: config.tunnelTimeoutMs,
  keepAliveTimeoutMs: config.keepAliveTimeoutMs,
  workers: config.workers,
});

// Two admissions, so that neither kind of request can hold the other's places: callers of a
// public server function cannot keep pages from rendering, nor pages the hydrated ones' calls.
// Each keeps its own turn budget; the calls' is the smaller, so that a flood of cheap calls
// leaves pages most of every turn.
const now = performance.now.bind(performance);
const pages = createAdmission(
  {
    concurrency: CONCURRENT_RENDERS,
    maxOpen: limits.maxOpenPages,
    turnBudgetMs: RENDER_TURN_BUDGET_MS,
    maxQueued: MAX_WAITING_RENDERS,
    maxWaitMs: MAX_RENDER_WAIT_MS,
  },
  now,
  setImmediate,
  waitThenRun,
);
const serverFunctions = createAdmission(
  {
    concurrency: CONCURRENT_SERVER_FUNCTION_CALLS,
    maxOpen: CONCURRENT_SERVER_FUNCTION_CALLS,
    turnBudgetMs: SERVER_FUNCTION_TURN_BUDGET_MS,
    maxQueued: MAX_WAITING_RENDERS,
    maxWaitMs: MAX_RENDER_WAIT_MS,
  },
  now,
  setImmediate,
  waitThenRun,
);

const callsPerClient = createClientSlots(SERVER_FUNCTION_CALLS_PER_CLIENT);

/** A timer that never keeps the process alive on its own. */
function waitThenRun(task: () => void, ms: number): void {
  setTimeout(task, ms).unref();
}

const server = new Server(
  {
    headersTimeout: limits.headersTimeout,
    requestTimeout: limits.requestTimeout,
    connectionsCheckingInterval: limits.connectionsCheckingInterval,
  },
  (req, res) => {
    const url = req.url ?? '/';
    // While draining, every answer ends its connection (see graceful-shutdown.server.ts).
    if (isShuttingDown()) res.shouldKeepAlive = false;
    // The browser SDK's reports and the load balancer's probe never wait behind pages.
    if (isTunnelPath(url)) {
      tunnel(req, res);
      return;
    }
    stampPeerAddress(req);
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    if (isHealthPath(url)) {
      answerHealth(req, res);
      return;
    }
    const path = pathOf(url);
    const badPath = pathRefusal(path);
    if (badPath) {
      answerText(res, badPath.status, badPath.reason);
      return;
    }
    const badHost = hostRefusal(req.headers.host, req.headers['x-forwarded-host']);
    if (badHost) {
      answerText(res, 400, badHost);
      return;
    }
    if (REFUSED_METHODS.has(req.method ?? '')) {
      res.setHeader('allow', 'GET, HEAD, POST');
      answerText(res, 405, 'Method not allowed');
      return;
    }
    if (isHiddenBuildFile(path) || isVariantRequest(path, publicFiles)) {
      answerText(res, 404, 'Not found');
      return;
    }
    if (path.startsWith(`${SERVER_FUNCTION_BASE}/`)) {
      const refusal = bodyLimitRefusal(req.headers);
      if (refusal) {
        warnLimited(
          `server-fn ${refusal.status}`,
          refusalLogLine(refusal.status, refusal.reason, req.method, serverFunctionIdOf(path)),
        );
        // The body stays unread: Node would otherwise read and discard it to keep the
        // connection alive, so a client that goes on sending gets its connection closed.
        res.shouldKeepAlive = false;
        answerText(res, refusal.status, refusal.reason);
        return;
      }
    }
    const kind = requestKind(req.method, path, publicFiles);
    // A default that a handler may override (Start's route headers would).
    res.setHeader('cache-control', cacheControlOf(path, kind === 'file' && publicFiles.has(path)));
    if (kind === 'file') {
      // nitro's static handler reads the header as a plain list (`br;q=1` is not `br`, and
      // `*` nothing): it gets the codings the client accepts, by name, and sends brotli when
      // both are. x-gzip is gzip (RFC 9110 §8.4.1.3), a name negotiator does not know.
      const header = req.headers['accept-encoding']?.replace(/\bx-gzip\b/gi, 'gzip');
      const accepted = new Negotiator({ headers: { 'accept-encoding': header } });
      req.headers['accept-encoding'] = accepted.encodings(['br', 'gzip']).join(', ');
      app(req, res);
      return;
    }
    if (kind === 'page' && lag.shedding()) {
      shed(res, `event loop lag ${Math.round(lag.lagMs())} ms over LOAD_SHEDDING_LAG_MS`);
      return;
    }
    if (kind === 'server-function') {
      const client = clientKeyOf(req.socket.remoteAddress);
      if (!callsPerClient.enter(client)) {
        warnLimited(
          'server-function call refused',
          `[server] 429 ${req.method} ${path}: client ${client} has ${SERVER_FUNCTION_CALLS_PER_CLIENT} server-function calls running or waiting`,
          1,
        );
        res.setHeader('retry-after', '1');
        answerText(res, 429, 'Too many calls at once from this client; try again in a moment.');
        return;
      }
      res.once('close', () => callsPerClient.leave(client));
      serverFunctions.admit({
        start: (place) => {
          res.once('close', place.release);
          app(req, res);
        },
        refuse: (reason) =>
          shed(
            res,
            `${reason} (${CONCURRENT_SERVER_FUNCTION_CALLS} server-function calls running)`,
            'server-function call shed',
          ),
        gone: () => req.socket.destroyed,
      });
      return;
    }
    pages.admit({
      start: (place) => {
        res.once('close', place.release);
        // The shell is rendered when the first bytes of the body go out (Start sends the
        // response once React's shell is ready); what follows is waiting for deferred parts.
        onFirstBodyWrite(res, place.streaming);
        app(req, res);
      },
      refuse: (reason) =>
        shed(
          res,
          `${reason} (${pages.working()} rendering, ${pages.open()} of ${limits.maxOpenPages} pages open)`,
        ),
      gone: () => req.socket.destroyed,
    });
  },
);
server.keepAliveTimeout = limits.keepAliveTimeout;
server.setTimeout(limits.idleSocketTimeout);
// Not server.maxConnections: Node would drop a newcomer before anyone could make room for it.
// With several workers, each takes its share of a client's connections as of the server's:
// connections are handed to the workers in turn (docs/production.md#workers).
shareConnections(
  server,
  {
    maxConnections: limits.maxConnections,
    perClient: workerShareOf(config.maxConnectionsPerClient, config.workers),
  },
  config.workers === 1
    ? 'MAX_CONNECTIONS_PER_CLIENT'
    : `this worker's share of MAX_CONNECTIONS_PER_CLIENT=${config.maxConnectionsPerClient} over ${config.workers} workers`,
);

server.once('error', (error: NodeJS.ErrnoException) => {
  const where = `${config.host}:${config.port}`;
  if (error.code === 'EADDRINUSE') {
    console.error(
      `[server] port ${config.port} is already in use on ${config.host}: stop the other server, or set PORT to a free port (PORT=0 picks one)`,
    );
  } else if (error.code === 'EACCES') {
    console.error(`[server] not allowed to listen on ${where}: choose a PORT above 1023`);
  } else {
    console.error(`[server] cannot listen on ${where}: ${error.message}`);
  }
  process.exit(1);
});

// The entry is .output/server/index.mjs; the chunks and their maps are beside it.
decodeLoadedSourceMaps(fileURLToPath(new URL('.', import.meta.url)));

server.listen({ port: config.port, host: config.host }, () => {
  const address = server.address();
  if (address === null || typeof address === 'string') return;
  // The inbox opens now, not at the first report: /health and the pages know at once.
  if (config.monitoring.kind === 'local-inbox') localInbox();
  // A worker's start lines are the primary's, printed once for all of them.
  if (thisWorker() !== undefined) return;
  const inboxProblem = prepareInboxAtStart(config);
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const access = describeInboxAccess(config, address.port);
  const spotlight = describeSpotlight(config);
  // One write: whoever waits for "Listening on" has the monitoring lines too.
  console.log(
    [
      `Listening on http://${host}:${address.port} (one process: WEB_CONCURRENCY=${config.webConcurrency})`,
      `[monitoring] ${describeMonitoring(config, address.port)}`,
      ...(access ? [`[monitoring] ${access}`] : []),
      ...(spotlight ? [`[monitoring] ${spotlight}`] : []),
    ].join('\n'),
  );
  if (inboxProblem) console.error(`[inbox] ${inboxProblem}`);
});

// A worker tells the primary its troubles, for the server's /health.
linkToPrimary(thisProcessReasons);
trapUnhandledNodeErrors();
handleShutdownSignals(server, nitroApp);

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** A fast 503 before any rendering: the server is busy, not broken. */
function shed(
  res: ServerResponse,
  why: string,
  kind: 'page shed' | 'server-function call shed' = 'page shed',
): void {
  healthSignals().note('pages-shed', kind === 'page shed' ? why : `server-function calls: ${why}`);
  // One line an episode; the summary a minute later says how many were turned away.
  warnLimited(kind, `[server] 503 ${res.req.method} ${pathOf(res.req.url ?? '/')}: ${why}`, 1);
  res.setHeader('retry-after', String(SHED_RETRY_AFTER_SECONDS));
  answerText(res, 503, 'The server is busy; try again in a moment.');
}

/**
 * Calls `then` once, at the response's first body write. Node has no event for it, so this
 * response's own `write` is wrapped for that one call, then the prototype's is back.
 */
function onFirstBodyWrite(res: ServerResponse, then: () => void): void {
  const own = res as { write: ServerResponse['write'] };
  own.write = ((...args: Parameters<ServerResponse['write']>) => {
    delete (own as { write?: unknown }).write;
    then();
    return res.write(...args);
  }) as ServerResponse['write'];
}

function answerText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}

function readDescriptorLimit(): number | undefined {
  try {
    return descriptorLimitOf(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return undefined; // not Linux: the fixed cap applies
  }
}

export default {};

/**
 * Decodes the source maps of the server's loaded chunks now, before the server listens.
 * Node decodes a chunk's map the first time a stack passes through it: for nitro's main chunk
 * (a 1.3 MB map) that took 155–235 ms, blocking the event loop at the first failure after a
 * start, when the failure's own report and every visitor were waiting. Here it costs the same
 * once, while nobody is waiting (docs/decisions/0701-server-source-maps.md).
 */
/** The number of maps decoded: one per chunk under `serverDir` that is loaded and has a map. */
export function decodeLoadedSourceMaps(serverDir: string): number {
  let decoded = 0;
  // index.mjs and chunks/: node_modules beside them is copied as it is, with no maps.
  for (const file of [join(serverDir, 'index.mjs'), ...chunkFiles(join(serverDir, 'chunks'))]) {
    // Undefined for a chunk not loaded yet (its map is decoded at its first stack) or with no map.
    if (findSourceMap(pathToFileURL(file).href) !== undefined) decoded++;
  }
  return decoded;
}

function chunkFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.mjs'))
      files.push(join(entry.parentPath, entry.name));
  }
  return files;
}
