import { resolve } from 'node:path';
import { formatDsn, tunnelTargetOf } from '../monitoring/dsn';
import { LOCAL_INBOX_DSN } from '../monitoring/local-dsn';
import type { ServerConfig } from './env.server';

/** The DSN this app's events are sent with: SENTRY_DSN, or the built-in local inbox DSN. */
export function reportingDsn(config: ServerConfig): string {
  return config.monitoring.kind === 'sentry' ? formatDsn(config.monitoring.dsn) : LOCAL_INBOX_DSN;
}

/** The DSN whose envelopes are stored locally: only in local inbox mode. */
export function localInboxDsnOf(config: ServerConfig): string | undefined {
  return config.monitoring.kind === 'local-inbox' ? LOCAL_INBOX_DSN : undefined;
}

/** One line that tells an operator where errors go (and, locally, where to read them). */
export function describeMonitoring(config: ServerConfig, cwd = process.cwd()): string {
  const { monitoring } = config;
  if (monitoring.kind === 'local-inbox') {
    return `local inbox mode (no SENTRY_DSN): errors are kept in ${resolve(cwd, monitoring.inboxDir)}; read them at ${errorsUrl(config)}`;
  }
  const { o, p, r } = tunnelTargetOf(monitoring.dsn);
  return `errors go to Sentry project ${p} (organisation ${o}${r ? `, region ${r}` : ''}) at ${monitoring.dsn.host}`;
}

/** Where /errors is, as far as the config knows (port 0 is picked at listen time). */
function errorsUrl(config: ServerConfig): string {
  if (config.port === 0) return '/errors';
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}/errors`;
}
