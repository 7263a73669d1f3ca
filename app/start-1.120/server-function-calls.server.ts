/**
 * Start 1.120 workaround (app/start-1.120/PATCHES.md): the request hooks of Start's `server`
 * router (server functions over HTTP, /_server/<id>), run before Start's handler; wired in
 * app.config.ts. Each answers what Start would get wrong:
 *
 * - an id that names no server function gets a short 404. Start's own handler would throw,
 *   print its whole server-function manifest to the log and answer 500, so any scanner could
 *   flood the log and raise failure alarms with made-up paths;
 * - a method other than GET and POST gets 405, and a payload Start cannot parse (bad JSON,
 *   none at all, a form that is not one) a 400 with a short reason: Start would answer its
 *   raw exception text with a 500 and print it over several lines (`payloadRefusal` in
 *   ./server-function-calls.ts).
 *
 * The body's size was bounded before h3 ran (`refuseEarly` in the node entry's refusals).
 */
import serverFunctions from 'tsr:server-fn-manifest';
import {
  defineMiddleware,
  getRequestHeader,
  type H3Event,
  readRawBody,
  send,
  setResponseHeader,
  setResponseStatus,
} from 'vinxi/http';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { refusalLogLine } from '#app/server/node/request-triage.server';
import {
  type CallRefusal,
  isFormContentType,
  methodRefusal,
  payloadRefusal,
  quietStartCallLogs,
  SERVER_FUNCTION_METHODS,
  serverFunctionIdOf,
} from './server-function-calls';

// Under `vinxi dev`, Start's log lines for every call (with its payload) are dropped.
if (process.env.NODE_ENV === 'development') quietStartCallLogs();

/** The path and query as the client sent them (h3 strips the router's base from req.url). */
function requestPath(event: H3Event): string {
  return event.node.req.originalUrl ?? event.node.req.url ?? '';
}

async function answerUnknownServerFunction(event: H3Event): Promise<void> {
  const id = serverFunctionIdOf(requestPath(event));
  if (id !== undefined && Object.hasOwn(serverFunctions, id)) return;
  setResponseStatus(event, 404);
  // send() marks the request handled: Start's handler does not run.
  await send(event, 'no such server function', 'text/plain; charset=utf-8');
}

async function answerUnusableCall(event: H3Event): Promise<void> {
  if (event.handled) return;
  const refusal = await refusalOf(event);
  if (!refusal) return;
  const { method } = event.node.req;
  warnLimited(
    `server-fn ${refusal.status}`,
    refusalLogLine(refusal.status, refusal.reason, method, serverFunctionIdOf(requestPath(event))),
  );
  if (refusal.status === 405) setResponseHeader(event, 'allow', SERVER_FUNCTION_METHODS);
  setResponseStatus(event, refusal.status);
  await send(event, refusal.reason, 'text/plain; charset=utf-8');
}

async function refusalOf(event: H3Event): Promise<CallRefusal | undefined> {
  const method = event.node.req.method;
  const wrongMethod = methodRefusal(method);
  if (wrongMethod) return wrongMethod;
  const contentType = getRequestHeader(event, 'content-type');
  const query = new URL(requestPath(event), 'http://localhost').searchParams;
  if (method === 'GET') return payloadRefusal({ method, contentType, query });
  // Bounded by the entry's body limit. h3 keeps what it read, and hands the same bytes to
  // Start's Request later.
  const body = (await readRawBody(event, false)) ?? Buffer.alloc(0);
  if (isFormContentType(contentType)) return formRefusal(body, contentType);
  return payloadRefusal({ method: 'POST', contentType, query, body: body.toString('utf8') });
}

// Start reads form bodies with Request.formData(): a body that it throws on (a multipart
// body without its boundary, say) is refused here in the same way.
async function formRefusal(
  body: Buffer,
  contentType: string | undefined,
): Promise<CallRefusal | undefined> {
  try {
    await new Request('http://localhost/', {
      method: 'POST',
      headers: contentType ? { 'content-type': contentType } : {},
      body: new Uint8Array(body),
    }).formData();
    return undefined;
  } catch {
    return { status: 400, reason: 'body is not valid form data' };
  }
}

export default defineMiddleware({
  onRequest: [answerUnknownServerFunction, answerUnusableCall],
});
