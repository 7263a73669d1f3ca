/**
 * Global server-function middleware: a POST from a Host or Origin that may not change state
 * here gets a 403 before the function runs (policy: ./state-change-guard.ts). The `.server()`
 * body, and with it the server-only imports, is stripped from the client bundle by Start.
 */
import { createMiddleware } from '@tanstack/react-start';
import { getWebRequest } from '@tanstack/react-start/server';
import { serverConfig } from '#app/server/env.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { stateChangeRefusal } from './state-change-guard';

export const stateChangeGuard = createMiddleware().server(async ({ next, functionId }) => {
  const request = getWebRequest();
  if (request) {
    const refusal = stateChangeRefusal(
      {
        method: request.method,
        host: request.headers.get('host'),
        origin: request.headers.get('origin'),
        fetchSite: request.headers.get('sec-fetch-site'),
      },
      serverConfig().allowedHosts,
    );
    if (refusal) {
      warnLimited(
        'server-fn 403',
        `[server-fn] 403 ${refusal}: ${request.method} ${functionId} with Host ${JSON.stringify(request.headers.get('host'))}`,
      );
      throw new Response(refusal, {
        status: 403,
        headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      });
    }
  }
  return next();
});
