/**
 * The server process's start and close, one flow:
 * - at start (a nitro plugin, before the process takes requests), the environment is parsed: a
 *   bad one stops the server here, with the message naming each bad variable;
 * - the start lines say where errors go: `vinxi dev` prints them from the plugin, the built
 *   server once it listens (`listenAndAnnounce`, called by app/server/node/node-server.server.ts
 *   after its inbox is open, `openInboxAtStart`, and its warm-up; it also installs nitro's
 *   handlers for unhandled errors);
 * - at close (nitro's `close` hook, after the server has drained its requests), failure reports
 *   still on their way, and reports the inbox's ingest thread still holds, get a bounded moment,
 *   so the events of the last moments are not lost with the process and a hanging Sentry or disk
 *   cannot hold the shutdown.
 */
import type { Server } from 'node:http';
import { thisWorker } from './cluster/worker-link.server';
import { type ServerConfig, serverConfig } from './env.server';
import { flushServerReports, reportsInFlight } from './failures/sentry-client.server';
import { healthSignals } from './health/health.server';
import { alertsConfigured, describeAlerts } from './inbox/alerts/channels.server';
import {
  localInbox,
  prepareInboxAtStart,
  reportInboxTroublesTo,
} from './inbox/store/local-inbox.server';
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
 * The built server's inbox, before its warm-up (../node/warm-up.server.ts): a plain process
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
