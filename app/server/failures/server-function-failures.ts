/**
 * A server function's failure, one flow: an invalid input answered 400 as the caller's fault
 * (one warning line), any other failure recorded (./record-failure.server.ts) and answered with
 * the public error. A module of its own, not part of record-failure: the global middleware is in
 * the client build's graph, where Start strips its `.server()` body and with it the imports that
 * body alone uses, so the server's failure handling stays out of the browser.
 */
import { isNotFound, isRedirect } from '@tanstack/react-router';
import { createMiddleware, startSerializer } from '@tanstack/react-start';
import { getWebRequest } from '@tanstack/react-start/server';
import * as v from 'valibot';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { refusalLogLine } from '#app/server/node/request-triage.server';
import { SERVER_FUNCTION_BASE } from '#app/start-1.120/server-function-calls';
import { captureServerFailure, type FailureContext } from './record-failure.server';

/**
 * Global server-function middleware: a server function that throws is recorded once and
 * answered with the public error only. Called over HTTP with input its validator refuses, it
 * is the caller's fault: a 400 naming the fields, one warning line, no failure record and no
 * report (the input, up to the body limit, would otherwise fill the log line and the event).
 * The `.server()` body is stripped from the client bundle by Start's compiler, and with it the
 * server-only imports.
 */
export const serverFunctionFailures = createMiddleware()
  .client(async ({ next }) => {
    try {
      return await next();
    } catch (error) {
      // Development: a server function's failure opens vite's overlay even when the caller
      // catches it, as a page's failure does (decision 0970). Production has no such code.
      if (import.meta.env.DEV) {
        void import('#app/monitoring/dev-overlay').then((overlay) => overlay.showDevOverlay(error));
      }
      throw error;
    }
  })
  .server(async ({ next, functionId }) => {
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
function requestOf(): Pick<FailureContext, 'method' | 'url' | 'incoming'> {
  try {
    const request = getWebRequest();
    if (!request) return { method: 'UNKNOWN' };
    return { method: request.method, url: new URL(request.url).pathname, incoming: request };
  } catch {
    return { method: 'UNKNOWN' };
  }
}

/**
 * Whether a server function failed because its validator refused the caller's input, and the
 * short description a caller gets back. Pure: the decision is tested without a server.
 *
 * A validator fails in one of two shapes in Start 1.120:
 * - `v.parse(Schema, input)` in a validator function throws valibot's ValiError;
 * - a schema passed to `.validator()` is run through Standard Schema by Start, which throws a
 *   plain Error whose message is the issues as JSON (the input values inside).
 * A handler of ours that lets a ValiError escape for its own data would be taken for the
 * caller's fault too: handlers check their own data with `v.safeParse` and throw their own error.
 */
export interface InputIssue {
  /** Dot path of the offending field; '' for the input as a whole. */
  path: string;
  message: string;
}

/** V8's words when JSON.stringify meets a BigInt. */
const BIGINT_ISSUES = /^Do not know how to serialize a BigInt$/;

/** Caps that keep the answer and the warning line short whatever the input was. */
const MAX_ISSUES = 3;
const MAX_PATH_CHARS = 100;
const MAX_MESSAGE_CHARS = 160;

/** The issues of a validator failure, or undefined for any other error. */
export function invalidInputIssues(error: unknown): InputIssue[] | undefined {
  // Start's serializer reads `{"$bigint":"1"}` as a BigInt; the validator refuses it, and Start
  // then fails to write the issues (they hold the input) as JSON: a TypeError, not the issues.
  if (error instanceof TypeError && BIGINT_ISSUES.test(error.message)) {
    return [{ path: '', message: 'a BigInt, which no input here takes' }];
  }
  if (error instanceof v.ValiError) {
    return error.issues.map((issue) => ({
      path: v.getDotPath(issue) ?? pathOf(issue.path),
      message: issue.message,
    }));
  }
  return standardSchemaIssues(error);
}

/** One line for the caller and the log: paths and messages, never the values themselves. */
export function describeInvalidInput(issues: readonly InputIssue[]): string {
  const shown = issues.slice(0, MAX_ISSUES).map((issue) => {
    const message = clip(oneLine(issue.message), MAX_MESSAGE_CHARS);
    return issue.path === '' ? message : `${clip(oneLine(issue.path), MAX_PATH_CHARS)}: ${message}`;
  });
  const more = issues.length > MAX_ISSUES ? ` (and ${issues.length - MAX_ISSUES} more)` : '';
  return `invalid input: ${shown.join('; ')}${more}`;
}

// Start's execValidator: `throw new Error(JSON.stringify(result.issues, undefined, 2))`.
function standardSchemaIssues(error: unknown): InputIssue[] | undefined {
  if (!(error instanceof Error) || error.constructor !== Error) return undefined;
  if (!error.message.startsWith('[')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(error.message);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  const issues: InputIssue[] = [];
  for (const issue of parsed) {
    if (typeof issue !== 'object' || issue === null || typeof issue.message !== 'string') {
      return undefined;
    }
    issues.push({ path: pathOf(issue.path), message: issue.message });
  }
  return issues;
}

/** A Standard Schema path (keys, or objects carrying `key`) as a dot path. */
function pathOf(path: unknown): string {
  if (!Array.isArray(path)) return '';
  return path
    .map((item) => (typeof item === 'object' && item !== null ? item.key : item))
    .map((key) => (typeof key === 'string' || typeof key === 'number' ? String(key) : '?'))
    .join('.');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
