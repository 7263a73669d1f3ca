/**
 * A worker's side of the cluster (./primary.server.ts starts the workers): which worker this
 * process is, its troubles sent to the primary every 500 ms (its sign of life too), and the
 * primary's view of the whole server kept for /health (./server-health.ts). Nothing here runs
 * in a plain process.
 */
import cluster from 'node:cluster';
import { processShared } from '#app/server/process-shared.server';
import { isServerHealthMessage, type ServerHealthMessage, WORKER_HEALTH } from './server-health';

/** Set by the primary for each worker it starts: its number, 1…WEB_CONCURRENCY. */
export const WORKER_NUMBER_VARIABLE = 'SERVER_WORKER';
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
