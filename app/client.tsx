/// <reference types="vinxi/types/client" />
import { StartClient } from '@tanstack/react-start';
import { StrictMode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { startBrowserMonitoring } from './monitoring/start-browser-monitoring';
import { createRouter } from './router';

const router = createRouter();
try {
  startBrowserMonitoring(router);
} catch (error) {
  // A monitoring failure (a bad config, an SDK bug) must never keep the page from hydrating.
  console.error('[monitoring] browser monitoring did not start', error);
}

hydrateRoot(
  document,
  <StrictMode>
    <StartClient router={router} />
  </StrictMode>,
);
