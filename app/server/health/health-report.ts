/** What GET /health answers: small, computed without I/O, the same shape in every mode. */

export interface HealthReport {
  /**
   * `ok`; `degraded` while something in `reasons` holds: pages are shed (the server is busy,
   * not broken), reports cannot be stored, or server events cannot reach Sentry; the answer
   * stays 200 so a load balancer keeps the server; `shutting-down` while it drains (503).
   */
  status: 'ok' | 'degraded' | 'shutting-down';
  /**
   * Why it is not `ok`: `pages-shed: …`, `reports-not-stored: …`, `sentry-unreachable: …`;
   * with several workers each names its worker (`… (worker 2)`), and `workers-down: …` says
   * that one is not serving.
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
  /** The server's troubles: this process's (`ownReasons`), and the other workers'. */
  reasons: string[];
  workers: HealthReport['workers'];
}

/** This process's troubles (./health-signals.ts), and shedding as soon as the lag monitor sheds. */
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
  const status = input.shuttingDown ? 'shutting-down' : reasons.length > 0 ? 'degraded' : 'ok';
  return {
    httpStatus: status === 'shutting-down' ? 503 : 200,
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
