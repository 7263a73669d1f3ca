/**
 * The public slice of the server config, for the root route to render into the document.
 * Computed per request from serverConfig(), so nothing about Sentry is baked into the build.
 */
import { createServerFn } from '@tanstack/react-start';
import type { PublicConfig } from '../monitoring/public-config';
import { publicConfigOf } from '../monitoring/public-config-of';
import { serverConfig } from './env.server';
import { reportingDsn } from './monitoring-mode.server';

export const getPublicConfig = createServerFn({ method: 'GET' }).handler(
  async (): Promise<PublicConfig> => {
    const config = serverConfig();
    return publicConfigOf({
      dsn: reportingDsn(config),
      environment: config.environment,
      release: config.release,
      tracesSampleRate: config.tracesSampleRate,
    });
  },
);
