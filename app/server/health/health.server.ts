/**
 * GET /health, one flow: the troubles each part of the server notes, the report built from them
 * (200 ok or degraded, 503 while starting or draining), and its answer over plain node:http.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  linkToPrimary,
  serverHealthOf,
  serverHealthView,
  startedWithServer,
  thisWorker,
} from '#app/server/cluster/worker-link.server';
import { serverConfig } from '#app/server/env.server';
import { lagMonitor } from '#app/server/health/event-loop.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { processShared } from '#app/start-1.120/process-shared.server';
import packageJson from '../../../package.json';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'health-signals': HealthSignals;
    'shutdown-state': { shuttingDown: boolean };
  }
}

/**
 * The one front door of /health, for the built server's entry (app/server/node/node-server.server.ts,
 * before anything else) and the SSR router's hook in `vinxi dev`
 * (app/start-1.120/dev-front-door.server.ts): answers the request if it is /health and says
 * whether it did. No page render, nothing logged or traced; why not a router of its own:
 * docs/decisions/0301-health-before-start.md.
 */
export function healthDoor(
  req: IncomingMessage,
  res: ServerResponse,
  url = req.url ?? '/',
): boolean {
  if (!isHealthPath(url)) return false;
  answerHealth(req, res);
  return true;
}

/** A worker tells the primary its troubles, for the server's /health. */
export function linkHealthToPrimary(): void {
  linkToPrimary(thisProcessReasons);
}

/** GET /health over plain node:http. */
export function answerHealth(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, 405, JSON.stringify({ status: 'method not allowed' }), { allow: 'GET, HEAD' });
    return;
  }
  const config = serverConfig();
  const own = thisProcessReasons();
  // A worker answers for the server: the others' troubles come through the primary.
  const worker = thisWorker();
  const view = serverHealthView();
  const server =
    worker === undefined
      ? // A plain process listens only once warm: it is never heard from while starting.
        { reasons: own, workers: { up: 1, of: 1 }, starting: false }
      : serverHealthOf(
          { worker, reasons: own, startedWithServer: startedWithServer() },
          view,
          config.workers,
        );
  const { httpStatus, report } = healthReport({
    version: packageJson.version,
    // The server's, not this worker's: a worker started again is not a server started again.
    uptimeSeconds: view ? (Date.now() - view.startedAt) / 1000 : process.uptime(),
    monitoring: config.monitoring.kind,
    lagMs: lagMonitor(config.loadSheddingLagMs).lagMs(),
    shuttingDown: isShuttingDown(),
    ...server,
  });
  send(res, httpStatus, JSON.stringify(report));
}

/** This process's own troubles, as /health lists them (and a worker reports to the primary). */
export function thisProcessReasons(): string[] {
  const lag = lagMonitor(serverConfig().loadSheddingLagMs);
  return ownReasons({
    troubles: healthSignals().reasons(),
    shedding: lag.shedding(),
    lagMs: lag.lagMs(),
  });
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

/** What GET /health answers: small, computed without I/O, the same shape in every mode. */

export interface HealthReport {
  /**
   * `ok`; `degraded` while something in `reasons` holds: pages are shed (the server is busy,
   * not broken), reports cannot be stored, or server events cannot reach Sentry; the answer
   * stays 200 so a load balancer keeps the server; `starting` (503) while some worker of a
   * server that has just started is still warming up, so that a load balancer waits for the
   * whole server (decision 1030); `shutting-down` while it drains (503).
   */
  status: 'ok' | 'degraded' | 'starting' | 'shutting-down';
  /**
   * Why it is not `ok`: `pages-shed: …`, `reports-not-stored: …`, `sentry-unreachable: …`,
   * `alerts-failing: webhook <host> (answered 503)` (an alert channel's latest attempt failed);
   * with several workers each names its worker (`… (worker 2)`), `workers-down: …` says
   * that one is not serving, and `starting: 1 of 2 workers serving` that the rest are warming up.
   */
  reasons: string[];
  /** Worker processes serving, of those the server runs (1 of 1 for a plain process). */
  workers: { up: number; of: number };
  version: string;
  uptimeSeconds: number;
  monitoring: 'local-inbox' | 'sentry';
  /** The event loop's recent mean lag, in milliseconds. */
  eventLoopLagMs: number;
}

export interface HealthInput {
  version: string;
  uptimeSeconds: number;
  monitoring: HealthReport['monitoring'];
  lagMs: number;
  shuttingDown: boolean;
  /** Some worker of the server has not listened yet since it started (../cluster/worker-link.server.ts). */
  starting: boolean;
  /** The server's troubles: this process's (`ownReasons`), and the other workers'. */
  reasons: string[];
  workers: HealthReport['workers'];
}

/** This process's troubles (`healthSignals`), and shedding as soon as the lag monitor sheds. */
export function ownReasons(input: {
  troubles: readonly string[];
  shedding: boolean;
  lagMs: number;
}): string[] {
  const reasons = [...input.troubles];
  // The lag monitor sheds before any page is turned away: it counts as soon as it decides.
  if (input.shedding && !reasons.some((reason) => reason.startsWith('pages-shed:'))) {
    reasons.unshift(`pages-shed: event loop lag ${Math.round(input.lagMs)} ms`);
  }
  return reasons;
}

export function healthReport(input: HealthInput): { httpStatus: 200 | 503; report: HealthReport } {
  const { reasons } = input;
  const status = input.shuttingDown
    ? 'shutting-down'
    : input.starting
      ? 'starting'
      : reasons.length > 0
        ? 'degraded'
        : 'ok';
  return {
    httpStatus: status === 'shutting-down' || status === 'starting' ? 503 : 200,
    report: {
      status,
      reasons,
      workers: input.workers,
      version: input.version,
      uptimeSeconds: Math.floor(input.uptimeSeconds),
      monitoring: input.monitoring,
      eventLoopLagMs: Math.round(input.lagMs * 10) / 10,
    },
  };
}

/** Exactly /health (a query is allowed); /health/x and /healthz are the app's to answer. */
export function isHealthPath(pathWithQuery: string): boolean {
  const query = pathWithQuery.indexOf('?');
  return (query === -1 ? pathWithQuery : pathWithQuery.slice(0, query)) === '/health';
}

/**
 * What /health must not hide: the server is up, yet it turns pages away, cannot store reports,
 * or cannot reach Sentry. Each part of the server notes its own trouble here as it happens;
 * /health reads what is current. Pure state with the clock passed in; the process's one
 * instance is `healthSignals`.
 */

export type Trouble =
  | 'pages-shed'
  | 'reports-not-stored'
  | 'sentry-unreachable'
  | 'inbox-at-cap'
  | 'alerts-failing';

/**
 * How long a shed page (or an eviction at the inbox's cap) counts after the last one: neither
 * has an end of its own to note.
 * The other troubles last until cleared: a store that failed is failing until a write works.
 */
export const TROUBLE_LINGERS_MS = 10_000;
const LAPSES: ReadonlySet<Trouble> = new Set(['pages-shed', 'inbox-at-cap']);

export interface HealthSignals {
  /** The trouble happened (again); `detail` says how, for /health and the log. */
  note(trouble: Trouble, detail: string): void;
  /** It is over: a report was stored, Sentry answered. */
  clear(trouble: Trouble): void;
  /** Current troubles as `trouble: detail`, in a fixed order. */
  reasons(): string[];
}

const ORDER: readonly Trouble[] = [
  'pages-shed',
  'reports-not-stored',
  'sentry-unreachable',
  'inbox-at-cap',
  'alerts-failing',
];

export function createHealthSignals(options: {
  now: () => number;
  /** Called when a trouble starts (not each time it recurs): one line per episode. */
  onStart(trouble: Trouble, detail: string): void;
}): HealthSignals {
  const current = new Map<Trouble, { detail: string; lastAt: number }>();
  const active = (trouble: Trouble, at: number) => {
    const seen = current.get(trouble);
    if (seen === undefined) return false;
    return !LAPSES.has(trouble) || at - seen.lastAt < TROUBLE_LINGERS_MS;
  };
  return {
    note(trouble, detail) {
      const at = options.now();
      if (!active(trouble, at)) options.onStart(trouble, detail);
      current.set(trouble, { detail, lastAt: at });
    },
    clear(trouble) {
      current.delete(trouble);
    },
    reasons() {
      const at = options.now();
      return ORDER.filter((trouble) => active(trouble, at)).map(
        (trouble) => `${trouble}: ${current.get(trouble)?.detail}`,
      );
    },
  };
}

/** The process's health signals (`createHealthSignals`), shared by every module copy. */
export function healthSignals(): HealthSignals {
  return processShared('health-signals', () =>
    createHealthSignals({
      now: Date.now,
      onStart: (trouble, detail) =>
        warnLimited(`health ${trouble}`, `[health] degraded: ${trouble}: ${detail}`),
    }),
  );
}

/**
 * Whether this process has begun its graceful shutdown (`handleShutdownSignals` in
 * ../startup.server.ts marks it): /health answers `shutting-down`, and every answer ends its
 * connection. One flag per process.
 */
const shutdown = processShared('shutdown-state', () => ({ shuttingDown: false }));

export function isShuttingDown(): boolean {
  return shutdown.shuttingDown;
}

export function markShuttingDown(): void {
  shutdown.shuttingDown = true;
}
