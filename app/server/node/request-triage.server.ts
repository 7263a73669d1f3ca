/**
 * The built server's entry triage, before nitro sees a request: what it refuses, in the order it
 * asks (bad paths and hosts, methods no route takes, the build's hidden files and precompressed
 * variants, server-function bodies over their limit, each refusal one warning line), then what
 * kind the rest is (a file, a server-function call, a page), which decides how it is admitted
 * (./admission.server.ts). The policies are pure; `refuseEarly` answers them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import {
  SERVER_FUNCTION_BASE,
  serverFunctionIdFor,
  serverFunctionIdOf,
} from '#app/start-1.120/server-function-calls';
import { isHiddenBuildFile, isVariantRequest } from './public-files.server';

/**
 * What the server's entry refuses before any route sees it: malformed paths, hosts and methods.
 * Each would otherwise reach Start, which throws on it (a 500, a failure logged and reported),
 * or reach a route under a spelling its policy does not know. Pure.
 *
 * Paths:
 *
 * - A malformed percent-escape (`/errors/%`) is the client's mistake: 400. The router used to
 *   answer it 200 with an empty document.
 * - A path that is not in its one canonical form (`//errors`, `/./errors`, `/a/../errors`, also
 *   spelled with `%2F` or `%2E`, or with a backslash, which browsers read as a slash) is 404. Such spellings reach the same route under a path that
 *   path-based policy (the inbox's `no-store`) does not recognise; no browser sends them for a
 *   link of ours, and redirecting `//host` to anything is how open redirects start.
 * - Control characters (`%00`, `%0A`) are 400: they belong in no path of ours, and a `%0A` in a
 *   logged path forges log lines.
 */

export interface PathRefusal {
  status: 400 | 404;
  reason: string;
}

export function pathRefusal(path: string): PathRefusal | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return { status: 400, reason: 'Bad request: malformed percent-encoding in the path' };
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
  if (/[\u0000-\u001f\u007f]/.test(decoded)) {
    return { status: 400, reason: 'Bad request: control character in the path' };
  }
  if (!decoded.startsWith('/') || decoded.includes('\\') || /\/\/|\/\.\.?(?:\/|$)/.test(decoded)) {
    return { status: 404, reason: 'Not found' };
  }
  return undefined;
}

/**
 * `Host` (and `X-Forwarded-Host`, which Start and nitro also read) must be a host name, IPv4 or
 * bracketed IPv6 address, with an optional port: Start builds the request's URL from it, and
 * `Host: a b`, `a^b` or `a:99999` made every page a 500 with a stack in the log. A missing Host
 * (HTTP/1.0) is left to the app, which answers as for any host.
 */
export function hostRefusal(
  host: string | undefined,
  forwardedHost: string | string[] | undefined,
): string | undefined {
  if (host !== undefined && !isHost(host)) return 'Bad request: invalid Host header';
  if (forwardedHost !== undefined) {
    const values = Array.isArray(forwardedHost) ? forwardedHost : forwardedHost.split(',');
    if (!values.every((value) => isHost(value.trim()))) {
      return 'Bad request: invalid X-Forwarded-Host header';
    }
  }
  return undefined;
}

const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?|\[[0-9a-f:.]{2,45}\])(?::(\d{1,5}))?$/i;

function isHost(value: string): boolean {
  const match = HOST.exec(value);
  if (!match || value.length > 255) return false;
  const port = match[1];
  if (port !== undefined && Number(port) > 65_535) return false;
  try {
    new URL(`http://${value}/`);
    return true;
  } catch {
    return false;
  }
}

/** Methods no route of ours answers, refused with 405 (TRACE made Start throw: a 500 each). */
export const REFUSED_METHODS = new Set(['TRACE', 'TRACK', 'CONNECT']);

/**
 * Answers a request the entry refuses, and says whether it did. Every refusal is plain text and
 * never stored; the body limit's also closes the connection.
 */
export function refuseEarly(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  publicFiles: ReadonlySet<string>,
): boolean {
  const badPath = pathRefusal(path);
  if (badPath) {
    answerText(res, badPath.status, badPath.reason);
    return true;
  }
  const badHost = hostRefusal(req.headers.host, req.headers['x-forwarded-host']);
  if (badHost) {
    answerText(res, 400, badHost);
    return true;
  }
  if (REFUSED_METHODS.has(req.method ?? '')) {
    res.setHeader('allow', 'GET, HEAD, POST');
    answerText(res, 405, 'Method not allowed');
    return true;
  }
  if (isHiddenBuildFile(path) || isVariantRequest(path, publicFiles)) {
    answerText(res, 404, 'Not found');
    return true;
  }
  if (path.startsWith(`${SERVER_FUNCTION_BASE}/`)) {
    const refusal = bodyLimitRefusal(req.headers);
    if (refusal) {
      warnLimited(
        `server-fn ${refusal.status}`,
        refusalLogLine(refusal.status, refusal.reason, req.method, serverFunctionIdOf(path)),
      );
      // The body stays unread: Node would otherwise read and discard it to keep the
      // connection alive, so a client that goes on sending gets its connection closed.
      res.shouldKeepAlive = false;
      answerText(res, refusal.status, refusal.reason);
      return true;
    }
  }
  return false;
}

/**
 * What a request costs the server. `file`: sent as it is from the public folder or the client
 * build (cheap, and a page half-loaded is worse than none: never held back). `server-function`:
 * a call of a hydrated page, waits for its turn but is not shed for lag (the page would show
 * an error). `page`: a server render, shed first. /health and the tunnel are answered before.
 */
export type RequestKind = 'file' | 'server-function' | 'page';

export function requestKind(
  method: string | undefined,
  path: string,
  publicFiles: ReadonlySet<string>,
): RequestKind {
  if (path.startsWith('/_server')) return 'server-function';
  const read = method === 'GET' || method === 'HEAD';
  if (read && (path.startsWith('/_build/') || publicFiles.has(path))) return 'file';
  return 'page';
}

/**
 * Which places a server-function call waits for. `inbox-access`: signing in to the inbox and
 * out of it, a lane of their own, so that the operator can sign in while other callers hold
 * every place of the other lane (2–3 addresses trickling 4–8 bodies each made 8 of 9 sign-ins
 * a 503, decision 1012). `calls`: every other. Pure.
 */
export type ServerFunctionLane = 'inbox-access' | 'calls';

const INBOX_ACCESS_CALLS = new Set(
  ['signInToInbox', 'signOutOfInbox'].map((name) =>
    serverFunctionIdFor('app/server/inbox/inbox.functions.ts', name),
  ),
);

export function serverFunctionLaneOf(path: string): ServerFunctionLane {
  const id = serverFunctionIdOf(path);
  return id !== undefined && INBOX_ACCESS_CALLS.has(id) ? 'inbox-access' : 'calls';
}

/** Caps on what the caller sent, so that a hostile path cannot make the line long. */
const MAX_ID_CHARS = 200;
const MAX_REASON_CHARS = 600;

/**
 * The one warning line for a server function call refused as the caller's fault (413, 411,
 * 405, 400): a caller's mistake is worth a line, never a failure record or a Sentry event. Pure.
 */
export function refusalLogLine(
  status: number,
  reason: string,
  method: string | undefined,
  functionId: string | undefined,
): string {
  const id = clipped(functionId ?? '(no id)', MAX_ID_CHARS);
  const why = clipped(reason.replace(/\s+/g, ' '), MAX_REASON_CHARS);
  return `[server-fn] ${status} ${why}: ${clipped(method ?? '?', 20)} ${id}`;
}

/**
 * The largest body a server function call may carry: pure policy, applied here before nitro, h3
 * or Start touch the request (Start reads a whole body into memory, with no limit). Why 64 KiB
 * and why 411: docs/decisions/0603-server-function-bodies.md. Our calls carry a few fields (a page
 * number, an event id, a form's token); a client building anything near this is broken or hostile.
 */
export const SERVER_FUNCTION_MAX_BODY_BYTES = 64 * 1024;

export interface BodyRefusal {
  status: 411 | 413;
  reason: string;
}

/**
 * The refusal for a body announced by these headers, or undefined when it may be read.
 * A declared length is enforced by Node's parser (it never hands over more than it), so it
 * is the bound. A body without one (chunked) is refused with 411 instead of counted: every
 * client of ours (Start's fetcher, a plain HTML form, fetch with a string or FormData) sends
 * Content-Length, and refusing keeps the body unread, where counting would mean re-feeding a
 * consumed stream to h3 and Start.
 */
export function bodyLimitRefusal(headers: {
  'content-length'?: string;
  'transfer-encoding'?: string;
}): BodyRefusal | undefined {
  const declared = headers['content-length'];
  if (declared === undefined) {
    if (headers['transfer-encoding'] === undefined) return undefined;
    return { status: 411, reason: 'a server function call needs a Content-Length' };
  }
  // Node has already refused a Content-Length that is not a number (400).
  const length = Number(declared);
  if (length > SERVER_FUNCTION_MAX_BODY_BYTES) {
    return {
      status: 413,
      reason: `body of ${length} bytes is over the limit of ${SERVER_FUNCTION_MAX_BODY_BYTES}`,
    };
  }
  return undefined;
}

function clipped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A request URL's path, without its query. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** The entry's own answers: short plain text, never stored. */
export function answerText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}
