/**
 * Global server-function middleware: a server function that throws is recorded once and
 * answered with the public error only. Called over HTTP with input its validator refuses, it
 * is the caller's fault: a 400 naming the fields, one warning line, no failure record and no
 * report (the input, up to the body limit, would otherwise fill the log line and the event).
 * The `.server()` body is stripped from the client bundle by Start's compiler, and with it the
 * server-only imports.
 */
import { isNotFound, isRedirect } from '@tanstack/react-router';
import { createMiddleware, startSerializer } from '@tanstack/react-start';
import { getWebRequest } from '@tanstack/react-start/server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import {
  describeInvalidInput,
  invalidInputIssues,
} from '#app/server/server-function-calls/invalid-input';
import { refusalLogLine } from '#app/server/server-function-calls/refusal-log-line';
import { SERVER_FUNCTION_BASE } from '#app/start-1.120/server-function-id';
import { captureServerFailure } from './record-failure.server';

export const serverFunctionFailures = createMiddleware().server(async ({ next, functionId }) => {
  try {
    return await next();
  } catch (error) {
    if (isRedirect(error) || isNotFound(error) || error instanceof Response) throw error;
    const request = requestOf();
    const overHttp = request.url?.startsWith(SERVER_FUNCTION_BASE) ?? false;
    // In-process (a loader during SSR) the input came from our own code: a failure like any other.
    const issues = overHttp ? invalidInputIssues(error) : undefined;
    if (issues) {
      const reason = describeInvalidInput(issues);
      warnLimited('server-fn 400', refusalLogLine(400, reason, request.method, functionId));
      throw new Response(reason, {
        status: 400,
        headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      });
    }
    const publicError = captureServerFailure(error, {
      phase: 'server-function',
      route: functionId,
      ...request,
    });
    // Called over HTTP: answer here, as Start's handler would (500, the serialised error), so
    // that its handler does not print the failure a second time ("Server Fn Error!"). Called
    // in-process by a loader during SSR: throw, and the route's failure handling takes over.
    if (overHttp) {
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
