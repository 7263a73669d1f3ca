/** What GET /health answers: small, computed without I/O, the same shape in every mode. */

export interface HealthReport {
  status: 'ok';
  version: string;
  uptimeSeconds: number;
  monitoring: 'local-inbox' | 'sentry';
}

export function healthReport(
  version: string,
  uptimeSeconds: number,
  monitoring: HealthReport['monitoring'],
): HealthReport {
  return { status: 'ok', version, uptimeSeconds: Math.floor(uptimeSeconds), monitoring };
}

/** Exactly /health (a query is allowed); /health/x and /healthz are the app's to answer. */
export function isHealthPath(pathWithQuery: string): boolean {
  return (pathWithQuery.split('?')[0] ?? '') === '/health';
}
