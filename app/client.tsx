/// <reference types="vinxi/types/client" />
/**
 * The browser's entry: take over the recorder, read the site config, start monitoring and
 * hydrate, telling monitoring when the shell has hydrated.
 */
import { StartClient } from '@tanstack/react-start';
import { StrictMode, useEffect } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { pageRecorder } from './monitoring/recorder/recorder';
import { reportCspViolations, startBrowserMonitoring } from './monitoring/start-browser-monitoring';
import { createRouter } from './router';
import { parseSiteConfig, SITE_CONFIG_ELEMENT_ID } from './site-config';

// The recorder in the document head has caught errors since the first byte (decision 0510).
const recorder = pageRecorder();

// The same context the server rendered with, so that hydration renders the same page.
const site = parseSiteConfig(document.getElementById(SITE_CONFIG_ELEMENT_ID)?.textContent);
const router = createRouter(site);
// The SDK, tracing and the offline store load after hydration, when the page needs them
// (decisions 0950, 0510).
let markShellHydrated = () => {};
const shellHydrated = new Promise<void>((resolve) => {
  markShellHydrated = resolve;
});
try {
  if (!recorder) throw new Error('the page has no recorder (app/routes/__root.tsx)');
  startBrowserMonitoring(router, site?.monitoring, recorder, shellHydrated);
} catch (error) {
  // A monitoring failure (a bad config, an SDK bug) must never keep the page from hydrating.
  console.error('[monitoring] browser monitoring did not start', error);
}

// From the first script on, like errors: a violation during hydration is the one that matters.
reportCspViolations(document, ({ message, tags, extra }) =>
  recorder?.captureMessage(message, { level: 'warning', tags, extra }),
);

// Development: failures open vite's error overlay (decision 0970); production has no such code.
if (import.meta.env.DEV) {
  void import('./monitoring/dev-overlay').then((overlay) => overlay.watchForDevOverlay(window));
}

hydrateRoot(
  document,
  <StrictMode>
    <StartClient router={router} />
    <OnHydrated onHydrated={markShellHydrated} />
  </StrictMode>,
);

/**
 * Renders nothing; calls `onHydrated` once React has committed the hydrated document's shell.
 * Rendered beside `<StartClient>`, outside every Suspense boundary: its effect runs with the first
 * commit (Start suspends the root until the route chunks are in). Content inside a Suspense
 * boundary (the route under the root) hydrates in a later pass: app/monitoring/start-browser-monitoring.ts.
 */
export function OnHydrated({ onHydrated }: { onHydrated: () => void }): null {
  useEffect(onHydrated, [onHydrated]);
  return null;
}
