/**
 * nitro's error handler, in place of its default: the same JSON answer, but the line it logs
 * for an unhandled error goes through the rate-limited log. nitro's own printed every one with
 * its stack: a client that aborts server-function bodies in a loop (an `H3Error: aborted` each)
 * wrote a stack per request. A client that went away is one line an episode; any other
 * unhandled error keeps its stack, within the per-kind budget.
 */
import { send, setResponseHeaders, setResponseStatus } from 'h3';
import { defineNitroErrorHandler } from 'nitropack/runtime';
import { defaultHandler } from 'nitropack/runtime/internal/error/prod';
import { errorLimited, warnLimited } from '#app/server/logging/rate-limited-log';

export default defineNitroErrorHandler((error, event) => {
  // nitro's handler reads the request's URL, which throws on a Host the entry did not see
  // (vinxi dev has no entry): then a plain 500, never a second throw.
  let answer: ReturnType<typeof defaultHandler>;
  try {
    answer = defaultHandler(error, event, { silent: true });
  } catch {
    answer = {
      status: 500,
      statusText: 'Server Error',
      headers: {},
      body: { error: true, statusCode: 500 },
    } as never;
  }
  if (error.unhandled || error.fatal) {
    const where = `[${event.method}] ${pathOf(event.node.req.url)}`;
    if (event.node.req.destroyed || error.message === 'aborted') {
      warnLimited(
        'request aborted',
        `[request error] ${where}: the client went away (${error.message})`,
        1,
      );
    } else {
      const cause = error.cause instanceof Error ? error.cause : error;
      errorLimited(
        'request error',
        `[request error] [unhandled] ${where}\n${cause.stack ?? cause.message}`,
      );
    }
  }
  if (event.node.res.headersSent || event.node.res.writableEnded) return;
  setResponseHeaders(event, answer.headers);
  setResponseStatus(event, answer.status, answer.statusText);
  return send(event, JSON.stringify(answer.body, null, 2));
});

function pathOf(url: string | undefined): string {
  const path = (url ?? '/').split('?')[0] ?? '/';
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}
