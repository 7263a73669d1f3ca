/**
 * The built server's first process (`npm start`, or node running the built server entry): it reads the
 * environment, and with WEB_CONCURRENCY above 1 it stays the primary of a node:cluster and
 * starts that many workers, each a whole server (../node/node-server.server.ts) on the same
 * port, which the primary hands connections to in turn, as fast as they take them; meanwhile
 * clients take turns in its line (`handOffConnectionsFairly`, decision 1013). nitro's
 * `node-cluster` preset would bring its own entry in place of ours, so this is node:cluster
 * directly (decision 0620).
 *
 * The primary serves nothing. It:
 * - hands the workers connections, clients in turn (`handOffConnectionsFairly`);
 * - lets the workers listen together once every one is warm (`warmUp` in ../startup.server.ts), and
 *   prints the start lines once, naming the worker count, when every worker listens; until
 *   then /health says `starting`;
 * - brings the inbox's schema up to date and ends the last run's sessions before any worker
 *   serves, and makes the run's inbox token, the same for every worker;
 * - starts a worker that stopped again, after a delay that grows while it
 *   keeps stopping (`restartDelayMs`), one line each time; stops and replaces a worker that has
 *   not been heard from for a while (its event loop is stuck);
 * - tells every worker the others' health, for /health (`serverHealthOf` in ./worker-link.server.ts);
 * - on SIGTERM or SIGINT has every worker drain, then exits.
 *
 * Built on its own, beside the server entry (build/server-side-files.ts):
 * the server's own chunks set up nitro's app as they load, which the primary must not.
 */
import cluster, { type Worker } from 'node:cluster';
import net from 'node:net';
import { type ServerConfig, serverConfig } from '#app/server/env.server';
import { prepareInboxAtStart } from '#app/server/inbox/store/local-inbox.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import {
  MAX_CONNECTIONS,
  readDescriptorLimit,
  SHUTDOWN_DRAIN_MS,
} from '#app/server/node/server-limits.server';
import { clientKeyOf } from '#app/server/security/client-key';
import {
  describeInboxAccess,
  describeMonitoring,
  describeSpotlight,
  describeTrustedProxies,
} from '#app/server/site-config.server';
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
  // allow (`handOffConnectionsFairly`).
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

/**
 * How many connections may wait in the primary, which has `descriptorLimit` open files
 * (undefined when unknown) and `workers` workers: the server's connection cap, within what its
 * descriptors allow beside its own few (stdio, libuv's, a channel per worker and the connections
 * being handed to each). Run out of them, libuv would close what waits in the kernel's backlog.
 * Pure.
 */
export function waitingLimit(descriptorLimit: number | undefined, workers: number): number {
  if (descriptorLimit === undefined) return MAX_CONNECTIONS;
  return Math.min(MAX_CONNECTIONS, Math.max(64, descriptorLimit - 64 - 4 * workers));
}

/**
 * Connections waiting for a worker, shared between clients: each client's oldest first, the
 * clients in turn, at most `maxWaiting` in all. Pure: connections are whatever ids the caller
 * gives (libuv's handles in the primary, numbers in the tests).
 */
export interface WaitingConnections<Id> {
  /**
   * `id` from `client` arrived. Returns the connection to close for it, when the line is full:
   * the oldest of the client with the most waiting, or `id` itself when that is its own client.
   */
  arrive(id: Id, client: string): Id | undefined;
  /** The next connection to hand over: the next client's oldest. */
  next(): Id | undefined;
  /** Every connection still waiting, taken out of the line (to close them). */
  takeAll(): Id[];
  size(): number;
}

export function createWaitingConnections<Id>(maxWaiting: number): WaitingConnections<Id> {
  // A client is in `turns` exactly once while it has an entry (which may have emptied).
  const waiting = new Map<string, Line<Id>>();
  const turns = new Line<string>();
  let size = 0;

  const mostWaiting = (): [string, Line<Id>] | undefined => {
    let most: [string, Line<Id>] | undefined;
    for (const entry of waiting) if (!most || entry[1].length > most[1].length) most = entry;
    return most;
  };

  const next = (): Id | undefined => {
    for (let client = turns.shift(); client !== undefined; client = turns.shift()) {
      const own = waiting.get(client) as Line<Id>;
      const id = own.shift();
      if (own.length > 0) turns.push(client);
      else waiting.delete(client);
      if (id !== undefined) {
        size -= 1;
        return id;
      }
    }
    return undefined;
  };

  return {
    arrive(id, client) {
      let own = waiting.get(client);
      let victim: Id | undefined;
      if (size >= maxWaiting) {
        const most = mostWaiting();
        if (!most || most[1].length <= (own?.length ?? 0)) return id;
        victim = most[1].shift();
        size -= 1;
      }
      if (!own) {
        own = new Line<Id>();
        waiting.set(client, own);
        turns.push(client);
      }
      own.push(id);
      size += 1;
      return victim;
    },
    next,
    takeAll() {
      const all: Id[] = [];
      for (let id = next(); id !== undefined; id = next()) all.push(id);
      return all;
    },
    size: () => size,
  };
}

/** A first-in, first-out line whose shift costs the same however long it is. */
class Line<T> {
  private items: T[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(item: T): void {
    this.items.push(item);
  }
  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head] as T;
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

/**
 * A worker answers for a connection within a turn of its event loop; one not answered for this
 * long went to a worker that died (or is stuck, and will be replaced): the next go to the others.
 */
const HAND_OFF_LOST_AFTER_MS = 10_000;

/** An accepted connection as node:cluster's primary holds it: libuv's TCP handle, no socket. */
interface ConnectionHandle {
  getpeername(out: { address?: string }): number;
  close(callback?: () => void): void;
}

/** The listening handle node:cluster's round robin opens; it calls `onconnection` per accept. */
interface ListeningHandle {
  onconnection: (error: number, connection?: ConnectionHandle) => void;
  close(callback?: () => void): void;
}

/**
 * How the cluster's primary hands accepted connections to the workers: clients in turn, and a
 * bounded line (decision 1013).
 *
 * node:cluster's round robin (Node 20's internal round-robin handle) accepts every
 * connection at once into one first-come line, and gives a worker its next connection only once
 * the worker has answered for the last (a round trip over IPC: about 1,500 a second for two
 * workers on the 2-core machine, busy). Twelve addresses reopening 10,200 tunnel posts as fast
 * as they were answered kept 8,000–9,800 connections in that line, and a newcomer's joined it
 * behind them: 5.6–10.6 s before a worker saw it, every time. Under a descriptor limit the line
 * also ran the primary out of descriptors, and libuv then closes every connection still waiting
 * in the kernel's backlog: a newcomer's, unanswered ("socket hang up").
 *
 * So the primary takes each connection out of node:cluster's hands as it is accepted, keeps it
 * in a line of its own where clients take turns, and feeds the round robin only as many as keep
 * the workers busy. A newcomer waits for one connection of each client waiting, not for every
 * connection. The line is bounded by the primary's descriptors: past it, the oldest connection
 * of the client with the most waiting is closed, as a worker evicts at its cap.
 *
 * Hooked on node:cluster's internals (the listening handle its round robin opens, the libuv
 * handles it passes around), which nothing public exposes; if their shape changes, the hook
 * stays out and says so. Retired by per-worker listening sockets (`reusePort`, Node 22.12), where
 * each worker accepts from a bounded queue of its own.
 *
 * In the primary, before any worker listens: every listening socket node:cluster opens for its
 * round robin hands connections over through a fair line (`createWaitingConnections`). `workers`: how many take
 * connections, each kept one ahead; `maxWaiting`: the line's bound.
 */
export function handOffConnectionsFairly(options: { workers: number; maxWaiting: number }): void {
  const listen = net.Server.prototype.listen;
  // The primary serves nothing itself: every server listening here is node:cluster's round robin
  // (it listens, then on 'listening' takes the handle and sets its onconnection).
  net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
    this.once('listening', () => {
      const handle = (this as unknown as { _handle?: ListeningHandle })._handle;
      // After the round robin's own 'listening' listener, registered once listen() returns.
      process.nextTick(() => gate(handle, options));
    });
    return (listen as (...a: unknown[]) => net.Server).apply(this, args);
  } as typeof listen;
}

function gate(
  handle: ListeningHandle | undefined,
  options: { workers: number; maxWaiting: number },
): void {
  const distribute = handle?.onconnection;
  if (!handle || typeof distribute !== 'function' || typeof handle.close !== 'function') {
    console.error(
      '[server] node:cluster hands connections over in a way this Node version does not show: connections go to the workers first come, first served',
    );
    return;
  }
  const line = createWaitingConnections<ConnectionHandle>(options.maxWaiting);
  // Two for each worker: the one it is being given, and its next, ready when it answers.
  const ahead = 2 * options.workers;
  /** Handed to the round robin and not yet closed by it, with when. */
  const handedOver = new Map<ConnectionHandle, number>();
  let open = true;

  const feed = () => {
    // A connection being handed to a worker as it dies is never closed by the round robin
    // (decision 0620): counted for ever, a few such would stop the hand-offs.
    const lostBefore = performance.now() - HAND_OFF_LOST_AFTER_MS;
    for (const [given, at] of handedOver) if (at < lostBefore) handedOver.delete(given);
    while (open && handedOver.size < ahead) {
      const next = line.next();
      if (next === undefined) return;
      handedOver.set(next, performance.now());
      // The round robin closes its copy once a worker has taken the connection (or every worker
      // has gone): then it may have the next.
      const close = next.close;
      next.close = function (this: ConnectionHandle, callback?: () => void) {
        next.close = close;
        handedOver.delete(next);
        close.call(this, callback);
        feed();
      };
      distribute.call(handle, 0, next);
    }
  };
  // Connections may wait while no new one arrives to feed the workers after a lost hand-off.
  const lostCheck = setInterval(feed, HAND_OFF_LOST_AFTER_MS);
  lostCheck.unref();

  handle.onconnection = (error, connection) => {
    if (error || !connection) {
      distribute.call(handle, error, connection);
      return;
    }
    const peer: { address?: string } = {};
    connection.getpeername(peer);
    const client = clientKeyOf(peer.address);
    const closed = line.arrive(connection, client);
    if (closed) {
      closed.close();
      warnLimited(
        'connection line full',
        `[server] ${options.maxWaiting} connections waiting for a worker: closed one of the client with the most waiting`,
        1,
      );
    }
    feed();
  };
  const closeListening = handle.close;
  handle.close = function (this: ListeningHandle, callback?: () => void) {
    open = false;
    clearInterval(lostCheck);
    for (const waiting of line.takeAll()) waiting.close();
    closeListening.call(this, callback);
  };
}
