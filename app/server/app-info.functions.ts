/**
 * Server functions behind the home page. Both run on the server only; the browser calls
 * them over HTTP with their inputs validated by valibot.
 */
import { createServerFn } from '@tanstack/react-start';
import * as v from 'valibot';
import { organisationOf, tunnelTargetOf } from '#app/monitoring/dsn';
import packageJson from '../../package.json';
import { serverConfig } from './env.server';
import { sampleEventLoop } from './health/runtime-health.server';

export type MonitoringSummary =
  | { kind: 'local-inbox'; inboxDir: string }
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
      summary = monitoring;
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

export const RuntimeHealthInput = v.object({
  /** How long to watch the event loop; the answer takes at least this long. */
  sampleMs: v.pipe(v.number(), v.integer(), v.minValue(50), v.maxValue(2000)),
});

export const getRuntimeHealth = createServerFn({ method: 'GET' })
  .validator(RuntimeHealthInput)
  .handler(async ({ data }) => sampleEventLoop(data.sampleMs));
