/**
 * Browser side: reads the public config the server rendered into the document and starts
 * Sentry with it, before hydration so that errors during hydration are reported too.
 */
import * as Sentry from '@sentry/react';
import { browserOptions, type TracedRouter } from './browser-options';
import { PUBLIC_CONFIG_ELEMENT_ID, parsePublicConfig } from './public-config';

export function startBrowserMonitoring(router: TracedRouter): void {
  const config = parsePublicConfig(document.getElementById(PUBLIC_CONFIG_ELEMENT_ID)?.textContent);
  if (!config) {
    console.warn('[monitoring] no public config in the document: browser errors are not reported');
    return;
  }
  Sentry.init(browserOptions(config, router));
}
