/**
 * Global server-function middleware: a server function that throws (its handler, or its
 * valibot validator, whose message lists the issues with the input values) is recorded once
 * and answered with the public error only. The `.server()` body is stripped from the client
 * bundle by Start's compiler, and with it the server-only imports.
 */
import { isNotFound, isRedirect } from '@tanstack/react-router';
import { createMiddleware, startSerializer } from '@tanstack/react-start';
import { getWebRequest } from '@tanstack/react-start/server';
import { SERVER_FUNCTION_BASE } from '../server-functions/server-function-id';
import { captureServerFailure } from './record-failure.server';

export const serverFunctionFailures = createMiddleware().server(async ({ next, functionId }) => {
  try {
    return await next();
  } catch (error) {
    if (isRedirect(error) || isNotFound(error) || error instanceof Response) throw error;
    const request = requestOf();
    const publicError = captureServerFailure(error, {
      phase: 'server-function',
      route: functionId,
      ...request,
    });
    // Called over HTTP: answer here, as Start's handler would (500, the serialised error), so
    // that its handler does not print the failure a second time ("Server Fn Error!"). Called
    // in-process by a loader during SSR: throw, and the route's failure handling takes over.
    if (request.url?.startsWith(SERVER_FUNCTION_BASE)) {
      throw new Response(startSerializer.stringify(publicError), {
        status: 500,
        headers: { 'Content-Type': 'application/json' },
      });
    }
    throw publicError;
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
