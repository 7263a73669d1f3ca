/**
 * Server functions behind the home page. Both run on the server only and are public: neither
 * takes input, so no caller decides how long the server works, and neither says more than a
 * visitor needs (no paths, no Node version or memory).
 */
import { createIsomorphicFn, createServerFn } from '@tanstack/react-start';
import { organisationOf, tunnelTargetOf } from '#app/monitoring/dsn';
import packageJson from '../../package.json';
import { serverConfig } from './env.server';
import {
  latestRuntimeHealth,
  nextRuntimeHealth,
  type RuntimeHealth,
} from './health/event-loop.server';

export type MonitoringSummary =
  | { kind: 'local-inbox' }
  | { kind: 'sentry'; host: string; organisation?: string; project: string; region?: string };

export interface AppOverview {
  name: string;
  version: string;
  environment: string;
  release: string;
  monitoring: MonitoringSummary;
}

export const getAppOverview = createServerFn({ method: 'GET' }).handler(
  async (): Promise<AppOverview> => {
    const config = serverConfig();
    const { monitoring } = config;
    let summary: MonitoringSummary;
    if (monitoring.kind === 'local-inbox') {
      // Not its directory: where the server keeps files is not the visitor's business.
      summary = { kind: 'local-inbox' };
    } else {
      const { p, r } = tunnelTargetOf(monitoring.dsn);
      summary = {
        kind: 'sentry',
        host: monitoring.dsn.host,
        organisation: organisationOf(monitoring.dsn),
        project: p,
        region: r,
      };
    }
    return {
      name: packageJson.name,
      version: packageJson.version,
      environment: config.environment,
      release: config.release,
      monitoring: summary,
    };
  },
);

/** The event-loop delay of the last complete window, at once. */
export const getRuntimeHealth = createServerFn({ method: 'GET' }).handler(() =>
  latestRuntimeHealth(),
);

/**
 * The home page's deferred section. Rendered on the server, a window measured while the page
 * streams (no render slot is held meanwhile: the shell is out); after a client-side
 * navigation, the last complete window, over HTTP.
 */
export const runtimeHealthForPage = createIsomorphicFn()
  .server((): Promise<RuntimeHealth> => nextRuntimeHealth())
  .client((): Promise<RuntimeHealth> => getRuntimeHealth());
