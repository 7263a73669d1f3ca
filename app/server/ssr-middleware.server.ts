/**
 * Request hooks of the SSR router (the one that serves every page): each runs before
 * TanStack Start and may answer the request itself. Wired in app.config.ts.
 */
import { defineMiddleware } from 'vinxi/http';
import { answerHealth } from './health/health-endpoint.server';

export default defineMiddleware({
  onRequest: [answerHealth],
});
