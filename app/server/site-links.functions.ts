/**
 * Which optional pages this server serves, so the navigation links only to pages that exist:
 * the error inbox in local inbox mode, the example page when example routes are on.
 */
import { createServerFn } from '@tanstack/react-start';
import { serverConfig } from './env.server';

export interface SiteLinks {
  errorInbox: boolean;
  examplePage: boolean;
}

export const getSiteLinks = createServerFn({ method: 'GET' }).handler(
  async (): Promise<SiteLinks> => {
    const config = serverConfig();
    return {
      errorInbox: config.monitoring.kind === 'local-inbox',
      examplePage: config.exampleRoutes,
    };
  },
);
