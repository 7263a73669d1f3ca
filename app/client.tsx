/// <reference types="vinxi/types/client" />
import { StartClient } from '@tanstack/react-start';
import { StrictMode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { startBrowserMonitoring } from './monitoring/start-browser-monitoring';
import { createRouter } from './router';

const router = createRouter();
startBrowserMonitoring(router);

hydrateRoot(
  document,
  <StrictMode>
    <StartClient router={router} />
  </StrictMode>,
);
