/** What GET /health answers: small, computed without I/O, the same shape in every mode. */

export interface HealthReport {
  /**
   * `ok`; `degraded` while new page requests are shed (the server is busy, not broken: the
   * answer stays 200 so a load balancer keeps it); `shutting-down` while it drains (503).
   */
  status: 'ok' | 'degraded' | 'shutting-down';
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
  shedding: boolean;
  shuttingDown: boolean;
}

export function healthReport(input: HealthInput): { httpStatus: 200 | 503; report: HealthReport } {
  const status = input.shuttingDown ? 'shutting-down' : input.shedding ? 'degraded' : 'ok';
  return {
    httpStatus: status === 'shutting-down' ? 503 : 200,
    report: {
      status,
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
