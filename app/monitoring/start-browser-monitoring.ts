/**
 * Browser side: starts Sentry with the config the server rendered into the document, before
 * hydration, so that errors during hydration are reported too.
 */
import * as Sentry from '@sentry/react';
import { browserOptions, type TracedRouter } from './browser-options';
import type { PublicConfig } from './public-config';

export function startBrowserMonitoring(
  router: TracedRouter,
  config: PublicConfig | undefined,
): void {
  // Every page the server renders carries the config; only a page that is not ours does not.
  if (!config) {
    console.error('[monitoring] the page carries no site config: browser errors are not reported');
    return;
  }
  Sentry.init(browserOptions(config, router));
}
