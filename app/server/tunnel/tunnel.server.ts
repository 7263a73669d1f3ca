/**
 * The tunnel: its front door (exactly /monitoring), the process's one tunnel built from the
 * server config, and a request's path (method → query → allow-list → length → header line →
 * Sentry or the local inbox), answered exactly once within the body deadline
 * (docs/decisions/0101, 0104). The path itself (`createTunnel`) is framework-free and takes
 * every dependency as an argument, so the same core runs in the app and on a bare node:http
 * server (tests/unit/server/tunnel/tunnel.test.ts). How an exchange is answered:
 * ./exchange.server.ts; the forward to Sentry: ./forward-to-sentry.server.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { workerShareOf } from '#app/server/cluster/worker-count.server';
import { serverConfig } from '#app/server/env.server';
import { envelopeOriginProblem } from '#app/server/inbox/envelope';
import { ingestErrorCode, rejectionStatus } from '#app/server/inbox/store/ingest-protocol';
import { localInbox, storeReport } from '#app/server/inbox/store/local-inbox.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { localInboxDsnOf } from '#app/server/site-config.server';
import { processShared } from '#app/start-1.120/process-shared.server';
import {
  type AllowList,
  createAllowList,
  type Destination,
  HeaderLineScanner,
  parseEnvelopeHeader,
  parseTunnelQuery,
} from './allow-list';
import {
  type ByteBudget,
  CLIENT_RATE_LIMITS,
  type ClientRate,
  type ClientSlots,
  createByteBudget,
  createClientRate,
  createClientSlots,
  localBufferLimits,
} from './client-limits';
import {
  Exchange,
  enforceBodyDeadline,
  errorMessageOf,
  internalErrorLine,
  noAllowedDsnReason,
  PLAIN_TEXT,
  tunnelLogKind,
  tunnelLogLine,
} from './exchange.server';
import {
  createUpstream,
  forwardToSentry,
  POOL_SOCKETS,
  type Upstream,
} from './forward-to-sentry.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    tunnel: TunnelHandler;
  }
}

/** The tunnel answers at exactly this path; the router's prefix match also sends /monitoringX and /monitoring/x. */
export const TUNNEL_PATH = '/monitoring';

/** Whether a raw request URL (path and query, as received) is the tunnel. */
export function isTunnelPath(rawUrl: string): boolean {
  if (!rawUrl.startsWith(TUNNEL_PATH)) return false;
  const next = rawUrl.charCodeAt(TUNNEL_PATH.length);
  // End of string, '?' or '#'.
  return Number.isNaN(next) || next === 0x3f || next === 0x23;
}

/**
 * The tunnel's one front door, for the built server's entry and the SSR router's hook under
 * `vinxi dev` (app/start-1.120/dev-front-door.server.ts): answers the request if it is the
 * tunnel's, and says whether it did. `rawUrl` is the path and query as the client sent them (a
 * router that strips its base keeps them in `originalUrl`). The tunnel answers on the Node
 * response itself, streaming; nothing waits for it.
 */
export function tunnelDoor(
  req: IncomingMessage,
  res: ServerResponse,
  rawUrl = req.url ?? '',
): boolean {
  if (!isTunnelPath(rawUrl)) return false;
  void theTunnel()(req, res);
  return true;
}

/**
 * Envelopes one client may have streaming to Sentry at once: an eighth of the streaming pool
 * (`POOL_SOCKETS`), so it takes 8 clients to hold it, and none can hold the whole pool.
 */
export const STREAMING_FORWARDS_PER_CLIENT = 8;

function theTunnel(): TunnelHandler {
  // One per process: the built server's entry and the /monitoring router each hold a copy of
  // this module, and the receive budget and Sentry connections are meant to be the process's.
  return processShared('tunnel', createTheTunnel);
}

function createTheTunnel(): TunnelHandler {
  const config = serverConfig();
  const tunnel = createTunnel({
    allowList: createAllowList(config.tunnelAllowedDsns, localInboxDsnOf(config)),
    maxBytes: config.tunnelMaxBytes,
    timeoutMs: config.tunnelTimeoutMs,
    bodyTimeoutMs: config.tunnelBodyTimeoutMs,
    // The server's connections to Sentry and its receive buffer, this worker's share of them.
    upstream: createUpstream(workerShareOf(POOL_SOCKETS, config.workers)),
    // Every envelope is kept, as Sentry would receive it; /errors lists events and counts the rest.
    storeLocally: storeReport,
    localBuffer: createByteBudget(localBufferLimits(config.tunnelMaxBytes, config.workers)),
    streamingForwards: createClientSlots(STREAMING_FORWARDS_PER_CLIENT),
    localRate: createClientRate(CLIENT_RATE_LIMITS, Date.now),
    // Every line is one a client can cause: at most 20 a minute per status, then a summary.
    // DEBUG=tunnel asks for every line.
    log: config.tunnelDebug
      ? (line) => console.warn(line)
      : (line) => warnLimited(tunnelLogKind(line), line),
    logLimited: warnLimited,
    debug: config.tunnelDebug,
  });
  // The first report of a local inbox server should not wait for the ingest thread to boot.
  if (config.monitoring.kind === 'local-inbox' && !localInbox().problem()) {
    localInbox().ingestThread().start();
  }
  return tunnel;
}

/**
 * The tunnel over plain Node streams: one POST /monitoring exchange, from the query check to
 * Sentry's answer. Framework-free (node:http request and response in, nothing thrown out), so
 * the h3 glue stays thin and a bare node:http server can run it too.
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

/**
 * Phase 1: the body up to the end of the envelope's header line, at most 64 KiB of it, then
 * `onLine` with the line and whether the body has ended with it. The chunks read stay on the
 * exchange for the next phase, which sends or stores them first.
 */
function readHeaderLine(
  exchange: Exchange,
  onLine: (line: Uint8Array, ended: boolean) => void,
): void {
  const { options } = exchange;
  const scanner = new HeaderLineScanner();
  const stop = exchange.read(
    (chunk) => {
      exchange.received += chunk.length;
      if (exchange.received > options.maxBytes) {
        exchange.rejectAndClose(413, `envelope over ${options.maxBytes} bytes`);
        return;
      }
      exchange.head.push(chunk);
      const newline = scanner.push(chunk);
      if (newline === 'too-long') {
        exchange.reject(400, 'no envelope header line within 64 KiB');
        return;
      }
      if (newline === -1) return;
      const { head, received } = exchange;
      const line =
        head.length === 1
          ? chunk.subarray(0, newline)
          : Buffer.concat(head).subarray(0, received - chunk.length + newline);
      stop();
      onLine(line, false);
    },
    () => {
      if (exchange.received === 0) {
        exchange.reject(400, 'empty envelope');
        return;
      }
      // A body without a newline is a header line alone (no items).
      stop();
      onLine(Buffer.concat(exchange.head), true);
    },
  );
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

const BUSY_HEADERS = { 'retry-after': '5' };

/**
 * Phase 2b, local inbox mode: the envelope held whole (it is bounded by maxBytes) and handed to
 * `storeLocally`; the answer is Sentry's own, `{"id": …}`, once it is stored. Every exchange's
 * held bytes count against one budget shared fairly (`localBuffer`), given back when the
 * exchange ends, however it ends. Past the client's share of envelopes still arriving, 429 and
 * the SDK waits; past the whole, 503 (docs/decisions/0310, 0611). The body is read chunk by
 * chunk rather than whole (node:stream/consumers) because each chunk is charged to the budget
 * as it arrives: the loop is the bound.
 */
function storeInLocalInbox(exchange: Exchange, eventId: string | undefined, ended: boolean): void {
  const { req, options, client } = exchange;
  const budget = options.localBuffer;
  // What the envelope announced (over maxBytes it was answered 413 before the body was read):
  // it decides whether the envelope may use the reserve for small ones.
  const declared = Number(req.headers['content-length'] ?? 0) || 0;
  const holding = budget.holding(client);
  exchange.res.once('close', holding.release);
  const hold = (bytes: number): boolean => {
    const answer = holding.grow(bytes, Math.max(declared, exchange.received));
    if (answer === 'ok') return true;
    exchange.head = [];
    if (answer === 'client') {
      exchange.overShare(
        `client ${client} holds its share of the local inbox's receive buffer (${budget.limits.perClient} bytes)`,
      );
    } else {
      exchange.rejectAndClose(
        503,
        'local inbox busy: too many envelopes arriving at once',
        BUSY_HEADERS,
      );
    }
    return false;
  };
  // The envelope holds one of its client's slots until its body has ended (taken in `start`,
  // before its header line was read).
  if (!hold(exchange.received)) return;
  const save = () => {
    holding.arrived();
    const { head } = exchange;
    const envelope = head.length === 1 ? (head[0] as Buffer) : Buffer.concat(head);
    exchange.head = [];
    options.localRate.charge(client, envelope.length);
    // Through a promise, so that a synchronous throw is answered like a rejection.
    Promise.resolve(envelope)
      .then((bytes) => options.storeLocally(bytes, client))
      .then(
        (stored) => {
          const id = stored.eventId ?? eventId;
          exchange.answer(200, JSON.stringify(id ? { id } : {}), 'application/json');
          if (options.debug) options.log(`[tunnel] 200 stored ${envelope.length} bytes locally`);
        },
        (error: unknown) => {
          const code = ingestErrorCode(error);
          if (code === 'rejected') {
            // What Relay would refuse: the client's mistake, with the reason it would give.
            exchange.reject(rejectionStatus(error), errorMessageOf(error));
            return;
          }
          if (code === 'over-share') {
            // The client has its share of the writes waiting: it waits, its reports kept.
            exchange.overShare(errorMessageOf(error));
            return;
          }
          if (code === 'busy') {
            // Too many writes waiting, or one waited too long: overload, answered like a full
            // receive buffer.
            exchange.fail(503, 'local inbox busy: too many envelopes being written', BUSY_HEADERS);
            return;
          }
          // The error names server paths: it goes to the log, not to the client.
          options.log(tunnelLogLine(500, `local inbox failed: ${errorMessageOf(error)}`));
          exchange.answer(500, 'local inbox failed', PLAIN_TEXT);
        },
      );
  };
  if (ended) {
    save();
    return;
  }
  exchange.read(
    (chunk) => {
      if (exchange.answered) return;
      exchange.received += chunk.length;
      if (exchange.received > options.maxBytes) {
        exchange.head = [];
        exchange.rejectAndClose(413, `envelope over ${options.maxBytes} bytes`);
        return;
      }
      if (hold(chunk.length)) exchange.head.push(chunk);
    },
    () => {
      if (!exchange.answered) save();
    },
  );
}

/**
 * What the tunnel is given. Every dependency is an argument, so the same core runs in the app
 * and on a bare node:http server (tests/unit/server/tunnel/tunnel.test.ts).
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
