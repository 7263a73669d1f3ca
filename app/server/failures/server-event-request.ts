/**
 * What a server event says about the request that failed, as Sentry's `request` interface and
 * transaction have it: method, URL, query string and a safe subset of headers; the route as the
 * transaction; for a server function, its readable name and the page that called it. Pure.
 * https://develop.sentry.dev/sdk/data-model/event-payloads/request/
 */
import { extractQueryParamsFromUrl, type RequestEventData } from '@sentry/core';
import { serverFunctionIdOf } from '#app/start-1.120/server-function-calls';

export interface FailedRequest {
  method: string;
  /** The request's absolute URL, as the server saw it. */
  url: string;
  headers: Iterable<[string, string]>;
  /** A page's route id (`/sentry-example-page/`, `__root__`), or a server function's id. */
  route: string;
  serverFunction: boolean;
}

export interface ServerFunctionFacts {
  /** The export's name (`callFailingExample`). */
  name: string;
  /** Start's id for it, as its URL has it. */
  id: string;
  /** The same-origin page that called it (its Referer), when it says. */
  page?: string;
}

export interface EventRequestFacts {
  request: RequestEventData;
  /** The route, never `/_server/…`: a server function's is its calling page's path. */
  transaction: string;
  serverFunction?: ServerFunctionFacts;
}

/**
 * Headers worth seeing and safe to send. An allow-list, not a deny-list: a header an app or
 * a proxy adds (`X-Api-Key`, `X-Amz-Security-Token`, a session header of its own) stays out
 * unless named here; Cookie, Authorization and Proxy-Authorization never are.
 */
export const SHOWN_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-length',
  'content-type',
  'dnt',
  'host',
  'origin',
  'pragma',
  'referer',
  'sec-ch-ua',
  'sec-ch-ua-mobile',
  'sec-ch-ua-platform',
  'sec-fetch-dest',
  'sec-fetch-mode',
  'sec-fetch-site',
  'sec-fetch-user',
  'upgrade-insecure-requests',
  'user-agent',
]);

/** A header value is shown up to this length: a giant User-Agent is not worth an event's bytes. */
const MAX_HEADER_VALUE = 1024;

export function eventRequestFacts(failed: FailedRequest): EventRequestFacts {
  const url = parsed(failed.url);
  const headers: Record<string, string> = {};
  let referer: string | undefined;
  for (const [key, value] of failed.headers) {
    const name = key.toLowerCase();
    if (!SHOWN_HEADERS.has(name)) continue;
    if (name === 'referer') {
      referer = sameOriginPage(value, url);
      if (!referer) continue;
    }
    headers[name] = value.slice(0, MAX_HEADER_VALUE);
  }
  const request: RequestEventData = {
    method: failed.method,
    url: url ? url.origin + url.pathname : failed.url,
    headers,
  };
  const query = extractQueryParamsFromUrl(failed.url);
  if (query) request.query_string = query;
  if (!failed.serverFunction) {
    return { request, transaction: transactionOf(failed.route, url) };
  }
  const serverFunction: ServerFunctionFacts = {
    name: serverFunctionName(failed.route),
    id: failed.route,
  };
  if (referer) serverFunction.page = referer;
  return { request, transaction: callerOf(referer, url) ?? serverFunction.name, serverFunction };
}

/**
 * The path of the page a server function was called for: its Referer's over HTTP; called
 * in-process by a loader during SSR, the request is the page's own.
 */
function callerOf(referer: string | undefined, url: URL | undefined): string | undefined {
  if (referer) return parsed(referer)?.pathname;
  if (url && serverFunctionIdOf(url.pathname) === undefined) return url.pathname;
  return undefined;
}

/** A page's route id is its pattern; the root's own failure is named by the page it failed on. */
function transactionOf(route: string, url: URL | undefined): string {
  if (route === '__root__' || route === '') return url?.pathname ?? '/';
  return route;
}

/**
 * A server function's export name from Start's id: the file's path with its separators
 * replaced, `--`, then `<export>_createServerFn_handler`
 * (`app_server_example_functions_ts--callFailingExample_createServerFn_handler`).
 */
export function serverFunctionName(id: string): string {
  const separator = id.lastIndexOf('--');
  if (separator === -1) return id;
  return id.slice(separator + 2).replace(/_createServerFn_handler$/, '') || id;
}

/** The Referer when it is a page of the same origin as the request: another site's is not ours. */
export function sameOriginPage(referer: string, request: URL | undefined): string | undefined {
  const page = parsed(referer);
  if (!page || !request || page.origin !== request.origin) return undefined;
  return page.origin + page.pathname + page.search;
}

function parsed(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
