/**
 * Where this process's errors go, as pages and operators are told: the site config pages get
 * (computed from the environment once: it changes only with a restart, so no request pays for
 * it), then the monitoring mode's DSNs and the words of the start lines.
 */

import { resolve } from 'node:path';
import { formatDsn, LOCAL_INBOX_DSN, organisationOf, tunnelTargetOf } from '#app/monitoring/dsn';
import { publicConfigOf, type SiteConfig } from '#app/site-config';
import { processShared } from '#app/start-1.120/process-shared.server';
import { type ServerConfig, serverConfig } from './env.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'site-config': SiteConfig;
  }
}

/** Pure: the site config of a server config. */
export function siteConfigOf(config: ServerConfig): SiteConfig {
  return {
    monitoring: publicConfigOf({
      dsn: reportingDsn(config),
      environment: config.environment,
      release: config.release,
      tracesSampleRate: config.tracesSampleRate,
      ...(config.spotlight.kind === 'sidecar' ? { spotlight: config.spotlight.url } : {}),
    }),
    links: {
      errorInbox: config.monitoring.kind === 'local-inbox',
      examplePage: config.exampleRoutes,
    },
  };
}

/** This process's site config; the environment is parsed at start (startup.server.ts). */
export function siteConfig(): SiteConfig {
  return processShared('site-config', () => siteConfigOf(serverConfig()));
}

/** The DSN this app's events are sent with: SENTRY_DSN, or the built-in local inbox DSN. */
export function reportingDsn(config: ServerConfig): string {
  return config.monitoring.kind === 'sentry' ? formatDsn(config.monitoring.dsn) : LOCAL_INBOX_DSN;
}

/** The DSN whose envelopes are stored locally: only in local inbox mode. */
export function localInboxDsnOf(config: ServerConfig): string | undefined {
  return config.monitoring.kind === 'local-inbox' ? LOCAL_INBOX_DSN : undefined;
}

/** One line that tells an operator where errors go (and, locally, where to read them). */
export function describeMonitoring(
  config: ServerConfig,
  port = config.port,
  cwd = process.cwd(),
): string {
  const { monitoring } = config;
  if (monitoring.kind === 'local-inbox') {
    return `local inbox mode (no SENTRY_DSN): errors are kept in ${resolve(cwd, monitoring.inboxDir)}; read them at ${errorsUrl(config.host, port)}`;
  }
  const { p, r } = tunnelTargetOf(monitoring.dsn);
  const organisation = organisationOf(monitoring.dsn);
  const facts = [organisation && `organisation ${organisation}`, r && `region ${r}`].filter(
    Boolean,
  );
  return `errors go to Sentry project ${p}${facts.length ? ` (${facts.join(', ')})` : ''} at ${monitoring.dsn.host}`;
}

/**
 * Who can read the local inbox, in one line; undefined with Sentry (there is no inbox). With a
 * token made for this run, the line carries the one-click sign-in link: the token is in the
 * fragment, which browsers never send, so it reaches no access log (decision 0306).
 */
export function describeInboxAccess(config: ServerConfig, port = config.port): string | undefined {
  if (config.monitoring.kind !== 'local-inbox') return undefined;
  const access = config.inboxAccess;
  if (access.kind === 'open') {
    return '/errors is open to anyone who can reach this server (development)';
  }
  const local = !access.trustLoopback
    ? '/errors is open '
    : proxyOnLoopback(config)
      ? '/errors is open to requests from this machine but not from TRUSTED_PROXIES, which names loopback (MONITORING_INBOX_TRUST_LOOPBACK), and '
      : '/errors is open to requests from this machine (MONITORING_INBOX_TRUST_LOOPBACK: no proxy in front) and ';
  if (!access.generated) return `${local}to visitors who sign in with MONITORING_INBOX_TOKEN`;
  const link = `${errorsUrl(config.host, port)}/sign-in#token=${access.token}`;
  return `${local}to visitors who sign in; one-click sign-in: ${link} (a token made for this run; set MONITORING_INBOX_TOKEN to keep one)`;
}

/** TRUSTED_PROXIES names a loopback address: a request from this machine may be a proxy's. */
function proxyOnLoopback(config: ServerConfig): boolean {
  return ['127.0.0.1', '::1'].some((address) => config.trustedProxies.trusts(address, 0));
}

/**
 * Whose address a per-client limit counts, in one line when TRUSTED_PROXIES is set; undefined
 * when it is not (every client is its TCP peer).
 */
export function describeTrustedProxies(config: ServerConfig): string | undefined {
  const { entries } = config.trustedProxies;
  if (entries.length === 0) return undefined;
  return `clients behind ${entries.join(', ')} (TRUSTED_PROXIES) are read from X-Forwarded-For (else Forwarded)`;
}

/**
 * One line about Spotlight when SENTRY_SPOTLIGHT is set: where copies of the events go, or
 * that production ignores it. Undefined when it is not set.
 */
export function describeSpotlight(config: ServerConfig): string | undefined {
  switch (config.spotlight.kind) {
    case 'off':
      return undefined;
    case 'sidecar':
      return `Spotlight: server and browser events also go to ${config.spotlight.url}`;
    case 'ignored-in-production':
      return 'SENTRY_SPOTLIGHT is ignored in production (NODE_ENV=production): Spotlight is for development';
  }
}

/** Where /errors is (port 0 is only known once listening). */
function errorsUrl(configuredHost: string, port: number): string {
  if (port === 0) return '/errors';
  const host =
    configuredHost === '0.0.0.0' || configuredHost === '::' ? 'localhost' : configuredHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/errors`;
}
