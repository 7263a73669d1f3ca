/**
 * Request hooks of Start's `server` router (server functions over HTTP, /_server/<id>), run
 * before Start's handler. Wired in app.config.ts.
 *
 * An id that names no server function gets a short 404 here. Start's own handler would throw,
 * print its whole server-function manifest to the log and answer 500, so any scanner could
 * flood the log and raise failure alarms with made-up paths.
 */
import serverFunctions from 'tsr:server-fn-manifest';
import { defineMiddleware, type H3Event, send, setResponseStatus } from 'vinxi/http';
import { serverFunctionIdOf } from './server-function-id';

async function answerUnknownServerFunction(event: H3Event): Promise<void> {
  // h3 strips the router's base from req.url; originalUrl is the path as the client sent it.
  const path = event.node.req.originalUrl ?? event.node.req.url ?? '';
  const id = serverFunctionIdOf(path);
  if (id !== undefined && Object.hasOwn(serverFunctions, id)) return;
  setResponseStatus(event, 404);
  // send() marks the request handled: Start's handler does not run.
  await send(event, 'no such server function', 'text/plain; charset=utf-8');
}

export default defineMiddleware({
  onRequest: [answerUnknownServerFunction],
});
