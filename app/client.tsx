/// <reference types="vinxi/types/client" />

import * as Sentry from '@sentry/react';
import { StartClient } from '@tanstack/react-start';
import { StrictMode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { OnHydrated } from './components/OnHydrated';
import { reportCspViolations } from './monitoring/csp-violations';
import { startBrowserMonitoring } from './monitoring/start-browser-monitoring';
import { createRouter } from './router';

const router = createRouter();
// Tracing and the offline store load once the page has hydrated, not before (decision 0830).
let markShellHydrated = () => {};
const shellHydrated = new Promise<void>((resolve) => {
  markShellHydrated = resolve;
});
try {
  startBrowserMonitoring(router, shellHydrated);
} catch (error) {
  // A monitoring failure (a bad config, an SDK bug) must never keep the page from hydrating.
  console.error('[monitoring] browser monitoring did not start', error);
}

// From the first script on, like errors: a violation during hydration is the one that matters.
reportCspViolations(document, ({ message, tags, extra }) =>
  Sentry.captureMessage(message, { level: 'warning', tags, extra }),
);

hydrateRoot(
  document,
  <StrictMode>
    <StartClient router={router} />
    <OnHydrated onHydrated={markShellHydrated} />
  </StrictMode>,
);
