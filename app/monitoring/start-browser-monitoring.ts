/**
 * Browser side: reads the public config the server rendered into the document and starts
 * Sentry with it, before hydration so that errors during hydration are reported too.
 *
 * The config is rendered from the root route's loader data, so a page whose root match failed
 * or never loaded (the root's beforeLoad threw; a child's beforeLoad threw notFound()) comes
 * without it. Then monitoring starts once a later page in the same tab brings the config (the
 * next resolved navigation), instead of staying off for the life of the tab.
 */
import * as Sentry from '@sentry/react';
import { browserOptions, type TracedRouter } from './browser-options';
import { PUBLIC_CONFIG_ELEMENT_ID, type PublicConfig, parsePublicConfig } from './public-config';

export function startBrowserMonitoring(router: TracedRouter): void {
  const config = publicConfigInDocument();
  if (config) {
    Sentry.init(browserOptions(config, router));
    return;
  }
  console.warn(
    '[monitoring] no public config in the document yet: browser errors are reported once a page brings it',
  );
  const unsubscribe: () => void = router.subscribe('onResolved', () => {
    const later = publicConfigInDocument();
    if (!later) return;
    unsubscribe();
    Sentry.init(browserOptions(later, router));
  });
}

function publicConfigInDocument(): PublicConfig | undefined {
  return parsePublicConfig(document.getElementById(PUBLIC_CONFIG_ELEMENT_ID)?.textContent);
}
