/**
 * The link between a worker and the primary (./primary.server.ts starts the workers): which
 * worker this process is, its troubles sent to the primary every 500 ms (its sign of life too),
 * and the primary's view of the whole server kept for /health (`serverHealthOf`: server-wide
 * /health from any worker). Nothing here runs in a plain process.
 */
import cluster from 'node:cluster';
import { processShared } from '#app/start-1.120/process-shared.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'cluster-worker-link': { linked: boolean; view: ServerHealthMessage | undefined };
  }
}

/** Set by the primary for each worker it starts: its number, 1…WEB_CONCURRENCY. */
export const WORKER_NUMBER_VARIABLE = 'SERVER_WORKER';
/**
 * Set to `1` for the workers the primary starts with the server, not for one started again later:
 * until the primary's first view comes, such a worker knows the server is still starting.
 */
export const STARTING_VARIABLE = 'SERVER_STARTING';
/**
 * How often a worker reports its troubles to the primary, changed or not: a report is also its
 * sign of life (a worker whose event loop is stuck sends none, ./primary.server.ts).
 */
export const REPORT_EVERY_MS = 500;

const state = processShared('cluster-worker-link', () => ({
  linked: false,
  view: undefined as ServerHealthMessage | undefined,
}));

/** This worker's number, or undefined in a plain process. */
export function thisWorker(): number | undefined {
  if (!cluster.isWorker) return undefined;
  const number = Number(process.env[WORKER_NUMBER_VARIABLE]);
  return Number.isInteger(number) && number >= 1 ? number : undefined;
}

/** The primary's last view of the server; undefined in a plain process or before the first. */
export function serverHealthView(): ServerHealthMessage | undefined {
  return state.view;
}

/** Whether this worker was started with the server (not again later): see STARTING_VARIABLE. */
export function startedWithServer(): boolean {
  return process.env[STARTING_VARIABLE] === '1';
}

/**
 * Resolves when this process may listen: at once in a plain process; in a worker, once the
 * primary says so. A worker tells the primary it is warm, and the primary lets the workers it
 * started with the server listen together, once every one of them is warm (one started again
 * later, at once): a worker that listened first served its first pages while its siblings still
 * warmed up beside it, on the same cores, and their lag shed those pages (decision 1030).
 */
export function mayListen(): Promise<void> {
  if (thisWorker() === undefined) return Promise.resolve();
  return new Promise((listen) => {
    const onMessage = (message: unknown) => {
      if ((message as { type?: unknown } | null)?.type !== LISTEN) return;
      process.off('message', onMessage);
      listen();
    };
    process.on('message', onMessage);
    process.send?.({ type: WORKER_WARM });
  });
}

/** In a worker: reports `ownReasons()` to the primary every REPORT_EVERY_MS, and keeps its view. */
export function linkToPrimary(ownReasons: () => string[]): void {
  if (thisWorker() === undefined || state.linked) return;
  state.linked = true;
  process.on('message', (message: unknown) => {
    if (isServerHealthMessage(message)) state.view = message;
  });
  const report = () => {
    if (process.connected) process.send?.({ type: WORKER_HEALTH, reasons: ownReasons() });
  };
  setInterval(report, REPORT_EVERY_MS).unref();
}

/**
 * /health for the whole server when it runs as several workers: the worker that answers knows
 * its own troubles first hand, and the others' from the primary, which collects what each
 * worker reports and tells them all (./primary.server.ts). Pure: the
 * messages they exchange over the cluster's IPC channel, and how a worker reads them.
 */

export const WORKER_HEALTH = 'start-monitoring:worker-health';
export const SERVER_HEALTH = 'start-monitoring:server-health';
/** A worker to the primary: it is warm, and waits for LISTEN (`mayListen`). */
export const WORKER_WARM = 'start-monitoring:worker-warm';
/** The primary to a warm worker: listen now. */
export const LISTEN = 'start-monitoring:listen';

/** A worker's current troubles (`trouble: detail`, as ../health/health.server.ts notes them), every 500 ms. */
export interface WorkerHealthMessage {
  type: typeof WORKER_HEALTH;
  reasons: string[];
}

/** The primary's view, sent to every worker whenever it changes. */
export interface ServerHealthMessage {
  type: typeof SERVER_HEALTH;
  /** Workers the server runs (WEB_CONCURRENCY resolved). */
  workers: number;
  /** When the server started (the primary), ms since the epoch: /health's uptime. */
  startedAt: number;
  /**
   * Not every worker has listened yet since the server started (each listens once warm,
   * `warmUp` in ../startup.server.ts): the start line is not printed, /health says `starting`.
   */
  starting: boolean;
  /** Workers listening and heard from lately, by number (1…workers). */
  serving: number[];
  /** Workers listening but not heard from for a while: their event loop is stuck. */
  silent: number[];
  /** Every worker's last reported troubles, by number; a worker reads the others'. */
  reasons: Record<string, string[]>;
}

export interface ServerHealth {
  /** Every worker's troubles, each naming its worker, and any worker not serving. */
  reasons: string[];
  workers: { up: number; of: number };
  /** The server is still starting: some worker has not listened yet since it started. */
  starting: boolean;
}

export function isWorkerHealthMessage(message: unknown): message is WorkerHealthMessage {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { type?: unknown }).type === WORKER_HEALTH &&
    isStringList((message as { reasons?: unknown }).reasons)
  );
}

export function isServerHealthMessage(message: unknown): message is ServerHealthMessage {
  if (typeof message !== 'object' || message === null) return false;
  const { type, workers, startedAt, starting, serving, silent, reasons } =
    message as Partial<ServerHealthMessage>;
  return (
    type === SERVER_HEALTH &&
    typeof workers === 'number' &&
    typeof startedAt === 'number' &&
    typeof starting === 'boolean' &&
    isNumberList(serving) &&
    isNumberList(silent) &&
    typeof reasons === 'object' &&
    reasons !== null &&
    Object.values(reasons).every(isStringList)
  );
}

/**
 * What worker `own.worker` answers for the server: its own troubles as they are now, the other
 * serving workers' as last reported, and one `workers-down` reason while any is not serving
 * (crashed and not yet back, or stuck). Before the primary's first view, only its own.
 * While the server is starting (the view says so; before the first view, `startedWithServer`),
 * a worker not serving yet is still warming up, not down: one `starting` reason instead.
 */
export function serverHealthOf(
  own: { worker: number; reasons: readonly string[]; startedWithServer?: boolean },
  view: ServerHealthMessage | undefined,
  workers: number,
): ServerHealth {
  const starting = view?.starting ?? own.startedWithServer ?? false;
  const serving = new Set(view?.serving ?? []);
  serving.add(own.worker);
  const silent = new Set((view?.silent ?? []).filter((worker) => worker !== own.worker));
  const reasons = own.reasons.map((reason) => `${reason} (worker ${own.worker})`);
  for (let worker = 1; worker <= workers; worker++) {
    if (worker === own.worker || !serving.has(worker)) continue;
    for (const reason of view?.reasons[worker] ?? []) reasons.push(`${reason} (worker ${worker})`);
  }
  const down = view
    ? range(workers).filter((worker) => !serving.has(worker) && !silent.has(worker))
    : [];
  const of = `(${serving.size} of ${workers} are)`;
  if (starting) {
    reasons.push(`starting: ${serving.size} of ${workers} workers serving`);
  } else if (down.length > 0) {
    reasons.push(`workers-down: ${workersAre(down)} not serving ${of}`);
  }
  if (silent.size > 0) {
    reasons.push(`workers-down: ${workersAre([...silent])} not answering ${of}`);
  }
  return { reasons, workers: { up: serving.size, of: workers }, starting };
}

function workersAre(numbers: number[]): string {
  return numbers.length === 1 ? `worker ${numbers[0]} is` : `workers ${numbers.join(', ')} are`;
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index + 1);
}

function isNumberList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'number');
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
