/**
 * Start 1.120 workaround (app/start-1.120/PATCHES.md), the pure half of the server-function
 * pre-checks: where calls are served and what Start names them, which calls Start can parse, and
 * the per-call dev log lines it prints that are dropped. All of it mirrors Start 1.120 (none is
 * a policy of ours: what it refuses is what Start would throw on), so it goes with the framework.
 */
import { startSerializer } from '@tanstack/react-start';

/**
 * Where Start 1.120 serves server functions over HTTP (the `server` router's base). Framework-free,
 * for the node entry, which routes calls before Start runs.
 */
export const SERVER_FUNCTION_BASE = '/_server';

/** The server function id a path names (`/_server/<id>`), or undefined for any other path. */
export function serverFunctionIdOf(path: string): string | undefined {
  const prefix = `${SERVER_FUNCTION_BASE}/`;
  if (!path.startsWith(prefix)) return undefined;
  const rest = path.slice(prefix.length);
  const end = rest.search(/[/?#]/);
  const id = end === -1 ? rest : rest.slice(0, end);
  return id === '' ? undefined : id;
}

/**
 * The id Start 1.120's compiler gives the server function exported as `exportName` from `file`
 * (its path from the project root): what `/_server/<id>` names. Mirrors `makeFileLocationUrlSafe`
 * of @tanstack/directive-functions-plugin 1.120 (its compilers module), for the entry, which
 * routes calls before Start runs and cannot import the functions themselves.
 */
export function serverFunctionIdFor(file: string, exportName: string): string {
  return `${file}--${exportName}_createServerFn_handler`
    .replace(/[^a-zA-Z0-9-_]/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^_|_$/g, '')
    .replace(/_--/g, '--');
}

// Which server function calls Start 1.120's handler can parse, decided before it tries: it
// answers anything else with its raw exception text (500) and prints it over several lines.
// Pure, so each shape is tested without a server; mirrors
// @tanstack/start-server-functions-handler (how it picks form data, query payload or JSON).

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

// Under `vinxi dev`, Start 1.120's server-function handler logs three lines per call with
// `console.info`: "ServerFn Request: <id>", "ServerFn Response: <status>" and " - Payload: <the
// first 100 characters of the result>". A user's data in the dev log on every click buries the
// lines that matter, so exactly these shapes are dropped; every other line goes through.

/** Start's per-call lines, as its handler writes them (the request line starts with a newline). */
const START_CALL_LINES = [
  /^\nServerFn Request: \S+$/,
  /^ServerFn Response: \d{3}$/,
  /^ - Payload: /,
];

/** Whether a `console.info` call is one of Start's per-call lines. */
export function isStartCallLogLine(args: readonly unknown[]): boolean {
  const [first] = args;
  return (
    args.length === 1 &&
    typeof first === 'string' &&
    START_CALL_LINES.some((line) => line.test(first))
  );
}

/** Wraps `console.info` once so that Start's per-call lines are dropped. */
export function quietStartCallLogs(target: Pick<Console, 'info'> = console): void {
  const info = target.info as typeof target.info & { quietStartCalls?: true };
  if (info.quietStartCalls) return;
  const quiet = Object.assign(
    (...args: unknown[]) => {
      if (!isStartCallLogLine(args)) info.apply(target, args);
    },
    { quietStartCalls: true as const },
  );
  target.info = quiet;
}
