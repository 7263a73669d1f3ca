/// <reference types="vinxi/types/server" />
import { getRouterManifest } from '@tanstack/react-start/router-manifest';
import { createStartHandler } from '@tanstack/react-start/server';
import { createRouter } from './router';
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
  }
}

// Every request's router gets the site config computed once at start (no per-request work).
// Route failures are swapped for their public form (digest only) before Start dehydrates
// them; the stream handler sets the 500 and records them (see docs/decisions/0200-*.md).
function createServerRouter() {
  const router = createRouter(siteConfig());
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
