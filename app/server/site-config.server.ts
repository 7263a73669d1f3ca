/**
 * The site config (app/site-config.tsx) of this process, computed from the environment once:
 * it changes only with a restart, so no request pays for it.
 */
import { publicConfigOf, type SiteConfig } from '#app/site-config';
import { type ServerConfig, serverConfig } from './env.server';
import { reportingDsn } from './monitoring-mode.server';
import { processShared } from './process-shared.server';

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
