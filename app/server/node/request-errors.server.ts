/**
 * nitro's error handler, in place of its default: the same JSON answer, but the line it logs
 * for an unhandled error goes through the rate-limited log. nitro's own printed every one with
 * its stack: a client that aborts server-function bodies in a loop (an `H3Error: aborted` each)
 * wrote a stack per request. A client that went away is one line an episode; any other
 * unhandled error keeps its stack, within the per-kind budget.
 */
import { getRequestURL, send, setResponseHeaders, setResponseStatus } from 'h3';
import { defineNitroErrorHandler } from 'nitropack/runtime';
import { defaultHandler } from 'nitropack/runtime/internal/error/prod';
import { errorLimited, warnLimited } from '#app/server/logging/rate-limited-log';

export default defineNitroErrorHandler((error, event) => {
  const answer = defaultHandler(error, event, { silent: true });
  if (error.unhandled || error.fatal) {
    const where = `[${event.method}] ${getRequestURL(event).pathname}`;
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
