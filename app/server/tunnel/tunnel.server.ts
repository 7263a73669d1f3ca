/**
 * The tunnel over plain Node streams: one POST /monitoring exchange, from the query check to
 * Sentry's answer. Framework-free (node:http request and response in, nothing thrown out), so
 * the h3 glue stays thin and the benchmark can run it on a bare node:http server too.
 *
 * A request's path: method → query → allow-list (no body read yet) → Content-Length → header
 * line (at most 64 KiB read) → header DSN → forwarded to Sentry byte for byte, or (local inbox
 * mode) stored → answered, exactly once, within the body deadline (docs/decisions/0101, 0104).
 */
import type { Destination } from './allow-list';
import { enforceBodyDeadline } from './body-deadline.server';
import { parseEnvelopeHeader } from './envelope-header';
import { Exchange } from './exchange.server';
import { forwardToSentry } from './forward-to-sentry.server';
import { parseTunnelQuery } from './query-schema';
import { readHeaderLine } from './read-header-line.server';
import { storeInLocalInbox } from './store-in-local-inbox.server';
import { internalErrorLine, noAllowedDsnReason } from './tunnel-messages';
import type { TunnelHandler, TunnelOptions } from './tunnel-options';

export function createTunnel(options: TunnelOptions): TunnelHandler {
  return (req, res) =>
    new Promise<void>((done) => {
      res.once('close', done);
      try {
        start(new Exchange(req, res, options));
      } catch (error) {
        // A bug must not take the server down: answer 500 and log it.
        options.log(internalErrorLine(error));
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('tunnel error');
        req.resume();
      }
    });
}

/** Everything that can be checked before the body is read, then the header line. */
function start(exchange: Exchange): void {
  const { req, options } = exchange;
  enforceBodyDeadline(exchange);
  if (req.method !== 'POST') {
    exchange.reject(405, `method ${req.method} not allowed`, { allow: 'POST' });
    return;
  }
  const query = parseTunnelQuery(req.url ?? '');
  if (!query.ok) {
    exchange.reject(400, query.reason);
    return;
  }
  const candidates = options.allowList.candidatesFor(query.target);
  if (!candidates) {
    exchange.reject(403, noAllowedDsnReason(query.target));
    return;
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > options.maxBytes) {
    exchange.rejectAndClose(413, `envelope of ${declared} bytes is over ${options.maxBytes}`);
    return;
  }
  readHeaderLine(exchange, (line, ended) => route(exchange, candidates, line, ended));
  exchange.watchClient();
}

/** The header's DSN decides: Sentry (streamed on) or the local inbox (stored). */
function route(
  exchange: Exchange,
  candidates: readonly Destination[],
  line: Uint8Array,
  ended: boolean,
): void {
  // This runs in a stream event handler, where a throw would escape every answer path (the
  // request would hang, a bare node:http server would crash): answer 500 instead.
  try {
    const header = parseEnvelopeHeader(line);
    if (!header.ok) {
      exchange.reject(400, header.reason);
      return;
    }
    const destination = exchange.options.allowList.match(candidates, header.dsn);
    if (!destination) {
      exchange.reject(403, 'envelope DSN is not the allowed DSN the query names');
      return;
    }
    if (destination.local) {
      const rate = exchange.options.localRate.admit(exchange.client);
      if (!rate.ok) {
        exchange.overRate(
          `client ${exchange.client} is over its rate into the local inbox`,
          rate.retryAfterSeconds,
        );
        return;
      }
      storeInLocalInbox(exchange, header.eventId, ended);
    } else forwardToSentry(exchange, destination, ended);
  } catch (error) {
    exchange.options.log(internalErrorLine(error));
    exchange.reject(500, 'tunnel error');
  }
}
