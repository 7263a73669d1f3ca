/**
 * The home page's two server functions, as the app has them (app/server/app-info.functions.ts):
 * the overview with fixed values (no environment module here) and the same event-loop sample,
 * imported from the app so that both pages wait for the same work.
 */
import { createServerFn } from '@tanstack/react-start';
import * as v from 'valibot';
import { sampleEventLoop } from '../../../../../app/server/health/runtime-health.server';

export interface AppOverview {
  name: string;
  version: string;
  environment: string;
  inboxDir: string;
}

export const getAppOverview = createServerFn({ method: 'GET' }).handler(
  async (): Promise<AppOverview> => ({
    name: 'tanstack-start-monitoring',
    version: '0.1.0',
    environment: 'production',
    inboxDir: '.data/inbox',
  }),
);

export const getRuntimeHealth = createServerFn({ method: 'GET' })
  .validator(
    v.object({ sampleMs: v.pipe(v.number(), v.integer(), v.minValue(50), v.maxValue(2000)) }),
  )
  .handler(async ({ data }) => sampleEventLoop(data.sampleMs));
