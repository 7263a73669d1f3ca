/**
 * The public slice of the server config, for the root route to render into the document.
 * Computed per request from serverConfig(), so nothing about Sentry is baked into the build.
 */
import { createServerFn } from '@tanstack/react-start';
import { formatDsn } from '../monitoring/dsn';
import { LOCAL_INBOX_DSN } from '../monitoring/local-dsn';
import type { PublicConfig } from '../monitoring/public-config';
import { publicConfigOf } from '../monitoring/public-config-of';
import { serverConfig } from './env.server';

export const getPublicConfig = createServerFn({ method: 'GET' }).handler(
  async (): Promise<PublicConfig> => {
    const config = serverConfig();
    const dsn =
      config.monitoring.kind === 'sentry' ? formatDsn(config.monitoring.dsn) : LOCAL_INBOX_DSN;
    return publicConfigOf({
      dsn,
      environment: config.environment,
      release: config.release,
      tracesSampleRate: config.tracesSampleRate,
    });
  },
);
