import { tunnelTargetOf } from '../monitoring/dsn';
import type { ServerConfig } from './env.server';

/** One line that tells an operator where errors go. */
export function describeMonitoring(config: ServerConfig): string {
  const { monitoring } = config;
  if (monitoring.kind === 'local-inbox') {
    return `local inbox mode: errors are kept in ${monitoring.inboxDir}, browse them at /errors`;
  }
  const { o, p, r } = tunnelTargetOf(monitoring.dsn);
  return `errors go to Sentry project ${p} (organisation ${o}${r ? `, region ${r}` : ''}) at ${monitoring.dsn.host}`;
}
