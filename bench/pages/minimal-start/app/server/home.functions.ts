/**
 * The home page's two server functions, as the app has them (app/server/app-info.functions.ts):
 * the overview with fixed values (no environment module here) and the same event-loop window,
 * imported from the app so that both pages wait for the same thing.
 */
import { createIsomorphicFn, createServerFn } from '@tanstack/react-start';
import {
  latestRuntimeHealth,
  nextRuntimeHealth,
  type RuntimeHealth,
} from '../../../../../app/server/health/event-loop.server';

export interface AppOverview {
  name: string;
  version: string;
  environment: string;
}

export const getAppOverview = createServerFn({ method: 'GET' }).handler(
  async (): Promise<AppOverview> => ({
    name: 'tanstack-start-monitoring',
    version: '0.1.0',
    environment: 'production',
  }),
);

export const getRuntimeHealth = createServerFn({ method: 'GET' }).handler(() =>
  latestRuntimeHealth(),
);

export const runtimeHealthForPage = createIsomorphicFn()
  .server((): Promise<RuntimeHealth> => nextRuntimeHealth())
  .client((): Promise<RuntimeHealth> => getRuntimeHealth());
