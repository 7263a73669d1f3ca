/**
 * The server process's start and close, one flow:
 * - at start (a nitro plugin, before the process takes requests), the environment is parsed: a
 *   bad one stops the server here, with the message naming each bad variable;
 * - the built server (./node/node-server.server.ts) opens its inbox (`openInboxAtStart`), warms
 *   up (`warmUp`), then listens (`listenAndAnnounce`, which also installs nitro's handlers for
 *   unhandled errors);
 * - the start lines say where errors go: `vinxi dev` prints them from the plugin, the built
 *   server once it listens;
 * - on SIGTERM or SIGINT the built server drains its requests (`handleShutdownSignals`);
 * - at close (nitro's `close` hook, after the server has drained its requests), failure reports
 *   still on their way, and reports the inbox's ingest thread still holds, get a bounded moment,
 *   so the events of the last moments are not lost with the process and a hanging Sentry or disk
 *   cannot hold the shutdown.
 */
import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { thisWorker } from './cluster/worker-link.server';
import { type ServerConfig, serverConfig } from './env.server';
import { flushServerReports, reportsInFlight } from './failures/sentry-client.server';
import { healthSignals, isShuttingDown, markShuttingDown } from './health/health.server';
import { alertsConfigured, describeAlerts } from './inbox/alerts/alert-policy';
import {
  localInbox,
  prepareInboxAtStart,
  reportInboxTroublesTo,
} from './inbox/store/local-inbox.server';
import { SHUTDOWN_DRAIN_MS } from './node/server-limits.server';
import {
  describeInboxAccess,
  describeMonitoring,
  describeSpotlight,
  describeTrustedProxies,
} from './site-config.server';

/** Well inside the usual 10–30 s between an orchestrator's SIGTERM and its SIGKILL. */
export const FLUSH_ON_CLOSE_MS = 2_000;
/** Well past a batch of durable writes; well inside an orchestrator's SIGTERM-to-SIGKILL. */
export const SETTLE_INGEST_ON_CLOSE_MS = 5_000;

interface NitroAppLike {
  /**
   * Only vinxi's dev server has it (nitro's runtime app does not). Both have `h3App`: this
   * plugin once asked for that, and `npm run dev` never said where errors go.
   */
  listen?: unknown;
  hooks: { hook(name: 'close', run: () => Promise<void>): void };
}

export default function startup(nitroApp: NitroAppLike): void {
  let config: ServerConfig;
  try {
    config = serverConfig();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  // The inbox imports nothing of /health: its troubles reach /health through this link.
  reportInboxTroublesTo(healthSignals());
  nitroApp.hooks.hook('close', flushFailureReports);
  nitroApp.hooks.hook('close', settleIngest);
  if (!nitroApp.listen) return;
  console.log(monitoringLines(config).join('\n'));
  const inboxProblem =
    config.monitoring.kind === 'local-inbox' ? localInbox().problem() : undefined;
  if (inboxProblem) console.error(`[inbox] ${inboxProblem}`);
}

/** Where errors go, one `[monitoring]` line each; `port` is the built server's, once it listens. */
function monitoringLines(config: ServerConfig, port?: number): string[] {
  const access = describeInboxAccess(config, port);
  const spotlight = describeSpotlight(config);
  const proxies = describeTrustedProxies(config);
  const alerts = describeAlerts(config);
  return [
    `[monitoring] ${describeMonitoring(config, port)}`,
    ...(access ? [`[monitoring] ${access}`] : []),
    ...(alerts ? [`[monitoring] ${alerts}`] : []),
    ...(spotlight ? [`[monitoring] ${spotlight}`] : []),
    ...(proxies ? [`[server] ${proxies}`] : []),
  ];
}

/**
 * The built server's inbox, before its warm-up (`warmUp`): a plain process
 * brings the schema up to date and ends the last run's sessions (a worker's primary did that
 * before starting it), then the store opens and its ingest thread starts. Done before the server
 * is warm, this work is not judged as load either. Returns the problem to print with the start
 * lines, if any.
 */
export function openInboxAtStart(config: ServerConfig): string | undefined {
  if (config.monitoring.kind !== 'local-inbox') return undefined;
  const problem = thisWorker() === undefined ? prepareInboxAtStart(config) : undefined;
  const inbox = localInbox();
  // Its alert sender lives in the ingest thread (decision 1201): alerts left pending by the last
  // run go out now, not at the first report.
  if (alertsConfigured(config) && !inbox.problem()) inbox.ingestThread().start();
  return problem;
}

/**
 * The built server listens on its PORT and HOST, once warm; a port already in use is one line
 * and exit code 1. Once it listens, the start lines follow, printed once for all workers (a
 * worker's are the primary's), with `inboxProblem` (from `openInboxAtStart`).
 */
export function listenAndAnnounce(
  server: Server,
  config: ServerConfig,
  inboxProblem: string | undefined,
): void {
  // nitro's handlers for unhandled errors and rejections, as its own node-server entry installs
  // them (a nitro internal: app/start-1.120/PATCHES.md). Loaded here, when the built server
  // calls this: the module needs nitro's build-time virtual modules, and `vinxi dev` evaluates
  // this plugin's file without them.
  void import('nitropack/runtime/internal/utils').then((nitro) => nitro.trapUnhandledNodeErrors());
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
  server.listen({ port: config.port, host: config.host }, () => {
    const address = server.address();
    if (address === null || typeof address === 'string') return;
    if (thisWorker() !== undefined) return;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    // One write: whoever waits for "Listening on" has the monitoring lines too.
    console.log(
      [
        `Listening on http://${host}:${address.port} (one process: WEB_CONCURRENCY=${config.webConcurrency})`,
        ...monitoringLines(config, address.port),
      ].join('\n'),
    );
    if (inboxProblem) console.error(`[inbox] ${inboxProblem}`);
  });
}

/** What the warm-up needs of nitro's app: its in-process fetch. */
export interface LocalFetcher {
  localFetch(path: string, init: { headers: Record<string, string> }): Promise<Response>;
}

/**
 * The pages a visitor opens first. `/errors` without a session renders its sign-in page (what
 * the warm-up, with no address of its own, would be sent to); its issue list, behind the sign-in,
 * is warmed by its first reader.
 */
export function warmUpPaths(monitoring: 'local-inbox' | 'sentry'): string[] {
  return monitoring === 'local-inbox' ? ['/', '/about', '/errors/sign-in'] : ['/', '/about'];
}

/**
 * A browser's User-Agent, bare: browsers get the streaming render (Start renders the whole page at
 * once for crawlers, isbot), which is what visitors are served. Any note added to it (it once
 * ended in "(server warm-up)") made isbot take it for a crawler, so the warm-up compiled the
 * crawlers' render instead. The page cache starts after the warm-up, so it keeps none of these.
 */
const WARM_UP_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * A warm-up that has not ended by then is given up and the server listens anyway: a page that
 * hangs must not keep the server from starting. Far over the 0.5-10 s seen on a busy 2-core
 * machine.
 */
export const WARM_UP_LIMIT_MS = 60_000;

/**
 * How many more times each page is rendered after its first render. The first compiles the code
 * to bytecode; the next have V8 compile what runs most to machine code. With one render, the
 * first visitors' renders still held the loop 350-500 ms (a 250 ms window's mean lag up to 266 ms,
 * shed) on a busy 2-core machine with a second worker warming beside; with six, the worst
 * window's mean was 30 ms. They run at once: the home page waits for an event-loop window, and
 * its waits overlap.
 */
export const WARM_UP_REPEATS = 5;

/**
 * The built server's warm-up: before it listens, each process renders the pages a new visitor
 * opens first, in-process, through the same nitro app its visitors reach (nitro's `localFetch`:
 * no socket, no port). The first render of a process loads the route chunks, opens the inbox,
 * and has V8 compile React's server renderer, the router and Start: 0.1-3 s of a held event loop
 * on a busy machine, which made the first visitors' pages 503 "The server is busy" and the
 * load-shedding test fail on a fresh server. Paid here, before the port opens, it delays the
 * start line instead (decision 1030).
 *
 * Renders each path once, one after another (at once, they would each compile the same cold
 * code), then WARM_UP_REPEATS more times each, all at once; resolves when all are done or the
 * limit has passed. A page that fails is recorded as any failed page is (it would fail its first
 * visitor too); a render that cannot be asked at all is said once here; neither stops the server. The limit's timer also
 * keeps the process alive meanwhile: nothing else does before the server listens, and the home
 * page waits on the event-loop monitor's unref'd timer.
 */
export async function warmUp(app: LocalFetcher, paths: readonly string[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'limit'>((done) => {
    timer = setTimeout(() => done('limit'), WARM_UP_LIMIT_MS);
  });
  const failed = new Set<string>();
  const render = async (path: string) => {
    try {
      const response = await app.localFetch(path, {
        headers: { 'user-agent': WARM_UP_USER_AGENT, accept: 'text/html' },
      });
      // The whole body: a streamed page's deferred parts are rendered while it is read.
      await response.arrayBuffer();
    } catch (error) {
      if (failed.has(path)) return;
      failed.add(path);
      console.error(
        `[server] warm-up of ${path} failed (the server starts anyway): ${error instanceof Error ? error.message : error}`,
      );
    }
  };
  const renderAll = async () => {
    for (const path of paths) await render(path);
    await Promise.all(
      Array.from({ length: WARM_UP_REPEATS }, () => paths.map((path) => render(path))).flat(),
    );
  };
  const outcome = await Promise.race([renderAll(), limit]);
  clearTimeout(timer);
  if (outcome === 'limit') {
    console.error(
      `[server] warm-up still rendering after ${WARM_UP_LIMIT_MS / 1000} s: listening anyway`,
    );
  }
}

/** During shutdown, a connection idle this long is closed: no request is on its way on it. */
const IDLE_GRACE_MS = 1_000;
const POLL_MS = 100;

/** What the drain needs of nitro's runtime app: its close hooks, run once requests are done. */
interface NitroCloseHooks {
  hooks: { callHook(name: 'close'): Promise<unknown> };
}

/** Node keeps the response a socket is serving here, and null between requests. */
type HttpSocket = Socket & { _httpMessage?: unknown };

/**
 * SIGTERM / SIGINT: stop accepting, let in-flight requests finish (up to SHUTDOWN_DRAIN_MS),
 * deliver the failure reports still on their way (nitro's `close` hook: `flushFailureReports`
 * and `settleIngest` below), then exit. Unlike `server.close()`, which drops idle kept-alive
 * connections at once (and with them a request a client may be sending on one at that moment),
 * a connection is closed only after it answered a request (every answer during shutdown says
 * `Connection: close`, see ./node/node-server.server.ts) or after it stayed idle for a while.
 */
export function handleShutdownSignals(server: Server, nitroApp: NitroCloseHooks): void {
  // Per connection, not per request: nothing is added to a request's own path.
  const sockets = new Set<HttpSocket>();
  server.on('connection', (socket: HttpSocket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  const shutdown = async (signal: string) => {
    if (isShuttingDown()) return;
    markShuttingDown();
    const worker = thisWorker();
    console.log(
      `[server] ${worker === undefined ? '' : `worker ${worker}: `}${signal}: finishing ${busy(sockets)} request(s) in flight, then exiting`,
    );
    // Stop listening without Node's closeIdleConnections(): see above.
    NetServer.prototype.close.call(server);
    const idleSince = new Map<HttpSocket, number>();
    const deadline = Date.now() + SHUTDOWN_DRAIN_MS;
    while (sockets.size > 0 && Date.now() < deadline) {
      const now = Date.now();
      for (const socket of sockets) {
        if (socket._httpMessage) {
          idleSince.delete(socket);
          continue;
        }
        // A connection that served a request since the last look closed itself after it.
        const since = idleSince.get(socket);
        if (since === undefined) idleSince.set(socket, now);
        else if (now - since >= IDLE_GRACE_MS) socket.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    if (sockets.size > 0) {
      console.warn(
        `[server] ${busy(sockets)} request(s) still running after ${SHUTDOWN_DRAIN_MS} ms: closing them`,
      );
      for (const socket of sockets) socket.destroy();
    }
    try {
      await nitroApp.hooks.callHook('close');
    } catch (error) {
      console.error('[server] shutdown hook failed', error);
    }
    process.exit(0);
  };
  // Not `once`: a worker gets the terminal's SIGINT and then the primary's SIGTERM, and a
  // second signal without a listener would end the process before its requests finish.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

function busy(sockets: Set<HttpSocket>): number {
  let count = 0;
  for (const socket of sockets) if (socket._httpMessage) count++;
  return count;
}

async function flushFailureReports(): Promise<void> {
  const pending = reportsInFlight();
  if (pending > 0) {
    console.log(
      `[monitoring] delivering ${pending} failure report(s) before exit (up to ${FLUSH_ON_CLOSE_MS} ms)`,
    );
  }
  const outcome = await flushServerReports(FLUSH_ON_CLOSE_MS);
  if (outcome === 'timed-out') {
    console.warn(
      `[monitoring] shutting down with failure reports not yet delivered (waited ${FLUSH_ON_CLOSE_MS} ms)`,
    );
  }
}

async function settleIngest(): Promise<void> {
  if (serverConfig().monitoring.kind !== 'local-inbox') return;
  const thread = localInbox().ingestThread();
  const pending = thread.pending();
  if (pending === 0) return;
  console.log(`[inbox] finishing ${pending} report(s) before exit`);
  if ((await thread.settled(SETTLE_INGEST_ON_CLOSE_MS)) === 'timed-out') {
    console.warn(
      `[inbox] shutting down with ${thread.pending()} report(s) unstored after ${SETTLE_INGEST_ON_CLOSE_MS} ms`,
    );
  }
}
