/**
 * The request an event says it failed in, as an issue's page shows it: Sentry's `request`
 * interface (method, URL, query string, headers), the route (the event's transaction) and,
 * for a server function, its name and the page that called it (our `server_function`
 * context). Pure; the payload is anyone's, so every field is checked and clipped.
 * https://develop.sentry.dev/sdk/data-model/event-payloads/request/
 */
import { isRecord } from '#app/server/inbox/protocol-values';

export interface RequestDetail {
  method?: string;
  url?: string;
  query?: string;
  route?: string;
  serverFunction?: { name: string; page?: string };
  headers: Array<[string, string]>;
}

const MAX_TEXT = 2000;
const MAX_LABEL = 100;
/** A browser sends about twenty; a page of a hundred says nothing more. */
const MAX_HEADERS = 50;

/** Undefined when the event names no request (most browser events name only a URL). */
export function requestDetailOf(event: Record<string, unknown>): RequestDetail | undefined {
  const request = isRecord(event.request) ? event.request : {};
  const detail: RequestDetail = { headers: headersOf(request.headers) };
  const method = text(request.method, MAX_LABEL);
  if (method) detail.method = method;
  const url = text(request.url, MAX_TEXT);
  if (url) detail.url = url;
  const query = queryOf(request.query_string);
  if (query) detail.query = query;
  const route = text(event.transaction, MAX_TEXT);
  if (route) detail.route = route;
  const contexts = isRecord(event.contexts) ? event.contexts : {};
  const serverFunction = isRecord(contexts.server_function) ? contexts.server_function : {};
  const name = text(serverFunction.name, MAX_LABEL);
  if (name) {
    detail.serverFunction = { name };
    const page = text(serverFunction.page, MAX_TEXT);
    if (page) detail.serverFunction.page = page;
  }
  // A browser event's URL alone is its page, already shown: nothing more to say.
  return detail.method || detail.serverFunction || detail.headers.length > 0 ? detail : undefined;
}

/** Headers as an object (SDKs) or a list of pairs (after Relay). */
function headersOf(value: unknown): Array<[string, string]> {
  const pairs = Array.isArray(value) ? value : isRecord(value) ? Object.entries(value) : [];
  const headers: Array<[string, string]> = [];
  for (const pair of pairs.slice(0, MAX_HEADERS)) {
    if (!Array.isArray(pair) || pair.length !== 2) continue;
    const [key, headerValue] = pair;
    const name = text(key, MAX_LABEL);
    const shown = text(headerValue, MAX_TEXT);
    if (name && shown) headers.push([name, shown]);
  }
  return headers;
}

/** A query string, or Relay's list of pairs. */
function queryOf(value: unknown): string | undefined {
  if (typeof value === 'string') return text(value, MAX_TEXT);
  if (!Array.isArray(value)) return undefined;
  const pairs = value.filter(
    (pair): pair is [string, string] =>
      Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string',
  );
  return text(new URLSearchParams(pairs).toString(), MAX_TEXT);
}

function text(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
