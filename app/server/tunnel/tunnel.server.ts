/**
 * The tunnel: the request's path (method, query, allow-list, length, header line, Sentry or
 * inbox), its options as arguments, and the lines and statuses it answers with.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TunnelTarget } from '#app/monitoring/dsn';
import { envelopeOriginProblem } from '#app/server/inbox/envelope';
import {
  type AllowList,
  type Destination,
  parseEnvelopeHeader,
  parseTunnelQuery,
  readHeaderLine,
} from './allow-list';
import type { ByteBudget, ClientRate, ClientSlots } from './client-limits';
import { Exchange, enforceBodyDeadline } from './exchange.server';
import { forwardToSentry, type Upstream } from './forward-to-sentry.server';
import { storeInLocalInbox } from './store-in-local-inbox.server';

/**
 * The tunnel over plain Node streams: one POST /monitoring exchange, from the query check to
 * Sentry's answer. Framework-free (node:http request and response in, nothing thrown out), so
 * the h3 glue stays thin and the benchmark can run it on a bare node:http server too.
 *
 * A request's path: method → query → allow-list (no body read yet) → Content-Length → header
 * line (at most 64 KiB read) → header DSN → forwarded to Sentry byte for byte, or (local inbox
 * mode) stored → answered, exactly once, within the body deadline (docs/decisions/0101, 0104).
 */
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
  // From the first byte, an envelope still arriving holds one of its client's slots, until its
  // body has ended: a header line that never ends held a connection no eviction may close (it
  // serves a request), and 12 addresses filled the connection cap with them
  // (docs/decisions/1011-header-line-under-the-clients-slot.md).
  if (!exchange.holdArrivingSlot()) return;
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
      const { headers } = exchange.req;
      const originProblem = envelopeOriginProblem(header.origin, headers);
      if (originProblem) {
        exchange.reject(400, originProblem);
        return;
      }
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

/**
 * What the tunnel is given. Every dependency is an argument, so the same core runs in the app,
 * on a bare node:http server (tests/unit/server/tunnel/tunnel.test.ts) and in the benchmark.
 */
export interface TunnelOptions {
  allowList: AllowList;
  maxBytes: number;
  /** How long Sentry has to answer, from the moment the forward begins. */
  timeoutMs: number;
  /** How long the client has to send the whole envelope, from the start of the exchange. */
  bodyTimeoutMs: number;
  upstream: Upstream;
  /**
   * Where envelopes for the local inbox DSN go, with the client's key for its share of the
   * store's queue; resolves once stored, with the event's id as the store normalised it. A
   * rejection answers by its IngestError code (app/server/inbox/store/ingest-protocol.ts):
   * `rejected` 400 with its reason (what Relay refuses), `over-share` 429, `busy` 503,
   * anything else 500.
   */
  storeLocally(envelope: Uint8Array, client: string): Promise<{ eventId?: string }>;
  /**
   * What local envelopes being received may hold in memory: per client (then 429) and all
   * together (then 503).
   */
  localBuffer: ByteBudget;
  /** Each client's rate into the local inbox: envelopes and bytes (then 429). */
  localRate: ClientRate;
  /**
   * Envelopes whose body is still arriving, per client, from their first byte, whether they go
   * to Sentry or the local inbox (then 429): slow uploads serve a request, so no eviction
   * closes them.
   */
  streamingForwards: ClientSlots;
  /** One line per rejected or failed request; never envelope contents. */
  log(line: string): void;
  /** Lines a flood of requests would repeat, rate-limited per kind (a fixed label). */
  logLimited(kind: string, line: string): void;
  /** Also log every forwarded envelope. */
  debug: boolean;
}

export type TunnelHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * The tunnel's words: its log lines and the reasons it answers with. Pure, so that what an
 * operator reads is tested as a table (tests/unit/server/tunnel/tunnel.test.ts).
 */
/** One log line per rejected or failed request: `[tunnel] STATUS reason`. */
export function tunnelLogLine(status: number, reason: string): string {
  return `[tunnel] ${status} ${reason}`;
}

/**
 * The rate-limit kind of a tunnel log line (app/server/logging/rate-limited-log.ts): its status,
 * so that a flood of 400s cannot hide the first 502 from Sentry. `[tunnel] 403 …` is
 * `tunnel 403`; a line with no status is `tunnel`.
 */
export function tunnelLogKind(line: string): string {
  const status = /^\[tunnel\] (\d{3}) /.exec(line)?.[1];
  return status ? `tunnel ${status}` : 'tunnel';
}

/** A thrown value's message, for the log only: it may name server paths. */
export function errorMessageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A bug caught before it could take the server down: logged, answered 500. */
export function internalErrorLine(error: unknown): string {
  return tunnelLogLine(500, `internal error: ${errorMessageOf(error)}`);
}

/** The 403 reason when no allowed DSN has the query's organisation, project and region. */
export function noAllowedDsnReason({ o, p, r }: TunnelTarget): string {
  return `no allowed DSN for o=${o} p=${p}${r ? ` r=${r}` : ''}`;
}
