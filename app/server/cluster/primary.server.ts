/**
 * The cluster's primary: reads the environment, serves here (WEB_CONCURRENCY=1) or starts one
 * worker per core, restarts the ones that die (with a growing delay) and drains them at shutdown.
 */
import cluster, { type Worker } from 'node:cluster';
import { type ServerConfig, serverConfig } from '#app/server/env.server';
import { prepareInboxAtStart } from '#app/server/inbox/store/local-inbox.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { readDescriptorLimit, SHUTDOWN_DRAIN_MS } from '#app/server/node/server-limits.server';
import {
  describeInboxAccess,
  describeMonitoring,
  describeSpotlight,
  describeTrustedProxies,
} from '#app/server/site-config.server';
import { handOffConnectionsFairly, waitingLimit } from './connection-hand-off.server';
import {
  isWorkerHealthMessage,
  LISTEN,
  REPORT_EVERY_MS,
  SERVER_HEALTH,
  type ServerHealthMessage,
  STARTING_VARIABLE,
  WORKER_NUMBER_VARIABLE,
  WORKER_WARM,
} from './worker-link.server';

/**
 * The built server's first process (`npm start`, `node .output/server/index.mjs`): it reads the
 * environment, and with WEB_CONCURRENCY above 1 it stays the primary of a node:cluster and
 * starts that many workers, each a whole server (../node/node-server.server.ts) on the same
 * port, which the primary hands connections to in turn, as fast as they take them; meanwhile
 * clients take turns in its line (./connection-hand-off.server.ts, decision 1013). nitro's
 * `node-cluster` preset would bring its own entry in place of ours, so this is node:cluster
 * directly (decision 0620).
 *
 * The primary serves nothing. It:
 * - lets the workers listen together once every one is warm (../node/warm-up.server.ts), and
 *   prints the start lines once, naming the worker count, when every worker listens; until
 *   then /health says `starting`;
 * - brings the inbox's schema up to date and ends the last run's sessions before any worker
 *   serves, and makes the run's inbox token, the same for every worker;
 * - starts a worker that stopped again, after a delay that grows while it
 *   keeps stopping (./restart-delay.ts), one line each time; stops and replaces a worker that has
 *   not been heard from for a while (its event loop is stuck);
 * - tells every worker the others' health, for /health (./server-health.ts);
 * - on SIGTERM or SIGINT has every worker drain, then exits.
 *
 * Built on its own, beside the server (`.output/server/cluster-primary.mjs`, build/server-side-files.ts):
 * the server's own chunks set up nitro's app as they load, which the primary must not.
 */
/** Past the workers' own drain bound, the primary stops waiting for them. */
const DRAIN_GRACE_MS = SHUTDOWN_DRAIN_MS + 10_000;
/** A worker not heard from for this long is not answering: /health says so. */
export const SILENT_AFTER_MS = 10 * REPORT_EVERY_MS;
/** ...and for this long, stuck for good: it is stopped and another started in its place. */
export const STUCK_AFTER_MS = 60 * REPORT_EVERY_MS;
/** Changes reach the workers together, at most this often: a burst of reports is one message. */
const TELL_EVERY_MS = 100;

/**
 * Reads the environment (a bad one stops the server here, once, naming each bad variable), and
 * says who serves: this process (WEB_CONCURRENCY=1), or the workers it now starts.
 */
export function startServer(entryFile: string): 'serve-here' | 'workers' {
  let config: ServerConfig;
  try {
    config = serverConfig();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  if (config.workers === 1) return 'serve-here';
  void runPrimary(config, entryFile);
  return 'workers';
}

/** One place per worker number; a worker started again takes its predecessor's place. */
interface Place {
  number: number;
  worker?: Worker;
  /** Its worker has warmed up (and waits to be told to listen, until `told`). */
  warm: boolean;
  told: boolean;
  listening: boolean;
  startedAt: number;
  /** When the worker last reported (its event loop turned). */
  heardAt: number;
  /** The delay before this place's current worker started (undefined: the first start). */
  delayMs?: number;
  restartTimer?: NodeJS.Timeout;
  reasons: string[];
}

async function runPrimary(config: ServerConfig, entryFile: string): Promise<void> {
  const count = config.workers;
  const startedAt = Date.now();
  const inboxProblem = prepareInboxAtStart(config);
  const workerEnv: Record<string, string> = { WEB_CONCURRENCY: String(count) };
  // A token made for this run is made here, once: every worker must accept the same one.
  const access = config.inboxAccess;
  if (access.kind === 'token' && access.generated) workerEnv.MONITORING_INBOX_TOKEN = access.token;
  cluster.setupPrimary({ exec: entryFile });
  // Connections wait here for a worker: clients in turn, as many as this process's descriptors
  // allow (./connection-hand-off.server.ts).
  handOffConnectionsFairly({
    workers: count,
    maxWaiting: waitingLimit(readDescriptorLimit(), count),
  });

  const places: Place[] = Array.from({ length: count }, (_, index) => ({
    number: index + 1,
    warm: false,
    told: false,
    listening: false,
    startedAt: 0,
    heardAt: 0,
    reasons: [],
  }));
  let draining = false;
  let started = false;
  const drainCodes: number[] = [];

  const silent = (place: Place, now: number) => now - place.heardAt >= SILENT_AFTER_MS;
  const view = (now = Date.now()): ServerHealthMessage => ({
    type: SERVER_HEALTH,
    workers: count,
    startedAt,
    starting: !started,
    serving: places
      .filter((place) => place.listening && !silent(place, now))
      .map((place) => place.number),
    silent: places
      .filter((place) => place.listening && silent(place, now))
      .map((place) => place.number),
    reasons: Object.fromEntries(places.map((place) => [place.number, place.reasons])),
  });
  const tellWorkersNow = () => {
    const message = view();
    for (const place of places) {
      const worker = place.worker;
      if (!place.listening || !worker?.isConnected()) continue;
      // A worker that just died may still look connected: its send fails, and its exit
      // handler does the rest.
      worker.send(message, undefined, () => {});
    }
  };
  let telling = false;
  const tellWorkers = () => {
    if (telling) return;
    telling = true;
    setTimeout(() => {
      telling = false;
      tellWorkersNow();
    }, TELL_EVERY_MS);
  };

  /**
   * At the start, workers listen once all are warm: one that listened first served its first
   * pages while the others still warmed up on the same cores. The first worker alone first: a
   * port in use is then said once, by it, not by every worker. After the start, at once.
   */
  const letWarmWorkersListen = () => {
    if (!started && !places.every((place) => place.warm)) return;
    const firstListens = started || places[0]?.listening === true;
    for (const place of places) {
      if (!place.warm || place.told || (!firstListens && place !== places[0])) continue;
      place.told = true;
      place.worker?.send({ type: LISTEN }, undefined, () => {});
    }
  };

  const start = (place: Place): Promise<{ address: string; port: number }> => {
    // Every worker asks for the same PORT, 0 included: node:cluster shares one listening socket
    // between the requests that name the same address and port (decision 0620).
    const worker = cluster.fork({
      ...workerEnv,
      [WORKER_NUMBER_VARIABLE]: String(place.number),
      ...(started ? {} : { [STARTING_VARIABLE]: '1' }),
    });
    place.worker = worker;
    place.warm = false;
    place.told = false;
    place.listening = false;
    place.startedAt = Date.now();
    place.heardAt = place.startedAt;
    place.reasons = [];
    // Without a listener, a failed send to a worker that died would end the primary.
    worker.on('error', () => {});
    worker.on('message', (message: unknown) => {
      if ((message as { type?: unknown } | null)?.type === WORKER_WARM) {
        place.warm = true;
        letWarmWorkersListen();
        return;
      }
      if (!isWorkerHealthMessage(message)) return;
      const wasSilent = silent(place, Date.now());
      place.heardAt = Date.now();
      const changed = message.reasons.join('\n') !== place.reasons.join('\n');
      place.reasons = message.reasons;
      if (changed || wasSilent) tellWorkers();
    });
    return new Promise((listening, stoppedFirst) => {
      worker.once('listening', (address) => {
        place.listening = true;
        place.heardAt = Date.now();
        letWarmWorkersListen();
        tellWorkers();
        listening({ address: address.address, port: address.port });
      });
      worker.once('exit', (code, signal) => {
        const wasListening = place.listening;
        place.listening = false;
        place.worker = undefined;
        if (!wasListening) stoppedFirst(new Error(exitOf(code, signal)));
        onExit(place, worker, wasListening, code, signal);
      });
    });
  };

  const onExit = (
    place: Place,
    worker: Worker,
    wasListening: boolean,
    code: number | null,
    signal: string | null,
  ) => {
    if (draining) {
      // A worker that never listened had nothing to drain.
      const clean = !wasListening || (signal === null && code === 0);
      drainCodes.push(clean ? 0 : 1);
      if (!clean) {
        console.error(
          `[server] worker ${place.number} stopped (${exitOf(code, signal)}) while draining`,
        );
      }
      if (places.every((each) => each.worker === undefined)) finishDrain();
      return;
    }
    // Before the server is up, a worker that stops is a failure to start: see below.
    if (!started) {
      failToStart(`worker ${place.number} stopped (${exitOf(code, signal)})`);
      return;
    }
    const livedMs = Date.now() - place.startedAt;
    const delayMs = restartDelayMs(place.delayMs, livedMs);
    place.delayMs = delayMs;
    warnLimited(
      'worker stopped',
      `[server] worker ${place.number} (pid ${worker.process.pid}) stopped (${exitOf(code, signal)}) after ${seconds(livedMs)}; starting another in ${seconds(delayMs)}`,
    );
    tellWorkers();
    place.restartTimer = setTimeout(() => {
      place.restartTimer = undefined;
      if (draining) return;
      // A worker that stops again before it listens is logged by its own exit.
      start(place).catch(() => {});
    }, delayMs);
  };

  const finishDrain = () => process.exit(drainCodes.every((code) => code === 0) ? 0 : 1);

  const drain = (signal: NodeJS.Signals) => {
    if (draining) return;
    draining = true;
    const live = places.filter((place) => place.worker);
    console.log(`[server] ${signal}: every worker finishes its requests in flight, then exits`);
    for (const place of places) clearTimeout(place.restartTimer);
    // SIGTERM whatever came here: a worker that got the terminal's SIGINT too ignores a second.
    for (const place of live) place.worker?.process.kill('SIGTERM');
    if (live.length === 0) finishDrain();
    setTimeout(() => {
      console.error(
        `[server] workers still running ${seconds(DRAIN_GRACE_MS)} after ${signal}: stopping them`,
      );
      for (const place of places) place.worker?.process.kill('SIGKILL');
      process.exit(1);
    }, DRAIN_GRACE_MS).unref();
  };
  process.on('SIGTERM', () => drain('SIGTERM'));
  process.on('SIGINT', () => drain('SIGINT'));

  /** A worker stopped before every worker listened: its own lines said why; the server stops. */
  const failToStart = (what: string) => {
    if (draining) return;
    draining = true;
    console.error(`[server] ${what} before the server was up: the server stops`);
    for (const place of places) place.worker?.process.kill('SIGKILL');
    process.exit(1);
  };

  // A worker whose event loop is stuck neither answers its connections nor reports: /health
  // says so after a while, and a while later it is replaced (its exit starts another).
  setInterval(() => {
    const now = Date.now();
    let changed = false;
    for (const place of places) {
      if (!place.listening || !place.worker) continue;
      const quietMs = now - place.heardAt;
      if (quietMs >= SILENT_AFTER_MS && quietMs < SILENT_AFTER_MS + REPORT_EVERY_MS) changed = true;
      if (quietMs >= STUCK_AFTER_MS && !draining) {
        warnLimited(
          'worker stuck',
          `[server] worker ${place.number} (pid ${place.worker.process.pid}) has not been heard from for ${seconds(quietMs)}: stopping it`,
        );
        place.worker.process.kill('SIGKILL');
      }
    }
    if (changed) tellWorkers();
  }, REPORT_EVERY_MS).unref();

  // Every worker at once: they warm up side by side, then listen (letWarmWorkersListen).
  const starts = places.map(start);
  for (const starting of starts) starting.catch(() => {}); // failToStart has it
  let address: { address: string; port: number } | undefined;
  try {
    [address] = await Promise.all(starts);
  } catch {
    return;
  }
  if (address === undefined || draining) return;
  started = true;
  // Before the start line: a connection accepted after it reaches its worker after this view
  // (node:cluster's primary accepts and hands connections over the same channel, in order), so
  // /health says `ok` once the line is out.
  tellWorkersNow();
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  const accessLine = describeInboxAccess(config, address.port);
  const spotlight = describeSpotlight(config);
  const proxies = describeTrustedProxies(config);
  console.log(
    [
      `Listening on http://${host}:${address.port} with ${count} workers (${workersWhy(config)})`,
      `[monitoring] ${describeMonitoring(config, address.port)}`,
      ...(accessLine ? [`[monitoring] ${accessLine}`] : []),
      ...(spotlight ? [`[monitoring] ${spotlight}`] : []),
      ...(proxies ? [`[server] ${proxies}`] : []),
    ].join('\n'),
  );
  if (inboxProblem) console.error(`[inbox] ${inboxProblem}`);
}

function workersWhy(config: ServerConfig): string {
  return config.webConcurrency === 'auto'
    ? 'WEB_CONCURRENCY=auto: one per core'
    : `WEB_CONCURRENCY=${config.webConcurrency}`;
}

function exitOf(code: number | null, signal: string | null): string {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * How long the primary waits before it starts a worker again in place of one that stopped
 * (./primary.server.ts): at once for a worker that had run a while, doubling for one that keeps
 * stopping soon after its start, so a crash loop costs a line and a fork every 30 s, not a
 * machine's worth of forks. Pure.
 */

export const FIRST_RESTART_DELAY_MS = 100;
export const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that served this long was not crash-looping: the next restart is quick again. */
export const STABLE_AFTER_MS = 60_000;

/** `previousMs`: the delay before the stopped worker's own start (undefined: it was the first). */
export function restartDelayMs(previousMs: number | undefined, livedMs: number): number {
  if (previousMs === undefined || livedMs >= STABLE_AFTER_MS) return FIRST_RESTART_DELAY_MS;
  return Math.min(MAX_RESTART_DELAY_MS, Math.max(FIRST_RESTART_DELAY_MS, previousMs * 2));
}
