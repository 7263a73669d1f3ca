/**
 * Global server-function middleware: a server function that throws (its handler, or its
 * valibot validator, whose message lists the issues with the input values) is recorded once
 * and answered with the public error only. The `.server()` body is stripped from the client
 * bundle by Start's compiler, and with it the server-only imports.
 */
import { isNotFound, isRedirect } from '@tanstack/react-router';
import { createMiddleware } from '@tanstack/react-start';
import { getWebRequest } from '@tanstack/react-start/server';
import { captureServerFailure } from './record-failure.server';

export const serverFunctionFailures = createMiddleware().server(async ({ next, functionId }) => {
  try {
    return await next();
  } catch (error) {
    if (isRedirect(error) || isNotFound(error) || error instanceof Response) throw error;
    throw captureServerFailure(error, {
      phase: 'server-function',
      route: functionId,
      ...requestOf(),
    });
  }
});

/** The HTTP request behind this call (the page's request when a loader calls it during SSR). */
function requestOf(): { method: string; url?: string } {
  try {
    const request = getWebRequest();
    if (!request) return { method: 'UNKNOWN' };
    return { method: request.method, url: new URL(request.url).pathname };
  } catch {
    return { method: 'UNKNOWN' };
  }
}
