/// <reference types="vinxi/types/server" />
import { getRouterManifest } from '@tanstack/react-start/router-manifest';
import { createStartHandler } from '@tanstack/react-start/server';
import { createRouter, type ProcessedRouteTree, processedRouteTreeOf } from './router';
import { siteConfig } from './server/site-config.server';
import { processShared } from './start-1.120/process-shared.server';
import {
  failureAwareStreamHandler,
  sanitiseRouteFailures,
  withoutEmptyRoutes,
} from './start-1.120/render-page.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'router-manifest': ReturnType<typeof getRouterManifest>;
    'processed-route-tree': ProcessedRouteTree;
  }
}

// Every request's router gets the site config computed once at start (no per-request work),
// and the route tree as the first router processed it: Router 1.120 otherwise redoes that in
// every router's constructor, for a tree that is the same for every request of a build (not
// under `vinxi dev`, where it changes as files do). Route failures are swapped for their public
// form (digest only) before Start dehydrates them; the stream handler sets the 500 and records
// them (see docs/decisions/0200-*.md).
function createServerRouter() {
  const site = siteConfig();
  const router = import.meta.env.DEV
    ? createRouter(site)
    : createRouter(
        site,
        processShared('processed-route-tree', () => processedRouteTreeOf(createRouter(site))),
      );
  sanitiseRouteFailures(router);
  return router;
}

// A build's route manifest never changes, yet Start rebuilds it for every request; `vinxi dev`
// changes it as files change, so there it is read each time. Routes with nothing in it are
// left out: every page serialises it.
function routerManifest() {
  if (import.meta.env.DEV) return getRouterManifest();
  return processShared('router-manifest', () => withoutEmptyRoutes(getRouterManifest()));
}

export default createStartHandler({
  createRouter: createServerRouter,
  getRouterManifest: routerManifest,
})(failureAwareStreamHandler);
