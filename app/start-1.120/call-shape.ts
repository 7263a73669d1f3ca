/**
 * Which server function calls Start 1.120's handler can parse, decided before it tries: it
 * answers anything else with its raw exception text (500) and prints it over several lines.
 * Pure, so each shape is tested without a server; mirrors
 * @tanstack/start-server-functions-handler (how it picks form data, query payload or JSON).
 */
import { startSerializer } from '@tanstack/react-start';

/** The methods Start's client and our forms use; the value of `Allow` on a 405. */
export const SERVER_FUNCTION_METHODS = 'GET, POST';

export interface CallRefusal {
  status: 400 | 405;
  reason: string;
}

/** Start takes a body as form data when its Content-Type merely contains one of these. */
export function isFormContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return (
    contentType.includes('multipart/form-data') ||
    contentType.includes('application/x-www-form-urlencoded')
  );
}

/** A method Start would treat as a POST (PUT, DELETE…) or fail on (HEAD). */
export function methodRefusal(method: string | undefined): CallRefusal | undefined {
  if (method === 'GET' || method === 'POST') return undefined;
  return { status: 405, reason: `${method ?? 'this method'} is not allowed here` };
}

export interface ParsedCall {
  method: 'GET' | 'POST';
  contentType: string | undefined;
  query: URLSearchParams;
  /** The body as text (POST only, not form data). */
  body?: string;
}

/**
 * The refusal for a GET or a non-form POST whose payload Start cannot parse or use, or
 * undefined. Form data is parsed by the caller (it needs a Request): a GET with a form
 * Content-Type is refused here, as Start would throw on it.
 */
export function payloadRefusal(call: ParsedCall): CallRefusal | undefined {
  const { method, query } = call;
  // Start's client marks its calls; without the mark Start parses the query as a whole (GET,
  // always fails) or spreads the JSON body as arguments (POST: it must be an array).
  const marked = query.has('createServerFn');
  if (method === 'GET') {
    if (isFormContentType(call.contentType)) return bad('form data needs POST');
    if (!marked) return bad('not a server function call (no createServerFn)');
    const payload = query.get('payload');
    if (payload === null) return bad('no payload');
    return optionsRefusal(parsed(payload));
  }
  const body = call.body ?? '';
  if (body === '') return bad('no payload');
  const value = parsed(body);
  if (marked || value === NOT_JSON) return optionsRefusal(value);
  return optionsRefusal(Array.isArray(value) ? value[0] : undefined);
}

const NOT_JSON = Symbol('not JSON');

function parsed(text: string): unknown {
  try {
    return startSerializer.parse(text);
  } catch {
    return NOT_JSON;
  }
}

// Start's server side assigns to the call options (`opts.type = …`) before anything else.
function optionsRefusal(options: unknown): CallRefusal | undefined {
  if (options === NOT_JSON) return bad('payload is not valid JSON');
  if (typeof options !== 'object' || options === null) return bad('payload is not an object');
  return undefined;
}

function bad(reason: string): CallRefusal {
  return { status: 400, reason };
}
