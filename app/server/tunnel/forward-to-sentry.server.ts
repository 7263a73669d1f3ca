/**
 * The tunnel's way to Sentry: the envelope streamed byte for byte, then the pools of kept-alive
 * connections it goes on.
 */
import {
  type ClientRequest,
  Agent as HttpAgent,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { requestClientAddress } from '#app/server/security/client-key';
import type { Destination } from './allow-list';
import { type Exchange, ignore } from './exchange.server';

/** The headers of Sentry's answer the SDK needs (it reads rate limits on 200s too). */
const ANSWER_HEADERS = ['content-type', 'content-length', 'retry-after', 'x-sentry-rate-limits'];
/** Client headers Sentry uses (Origin/Referer for the project's allowed domains). */
const FORWARDED_HEADERS = ['user-agent', 'origin', 'referer'] as const;

/**
 * Phase 2a: the envelope streamed to Sentry byte for byte (the header line read so far, then the
 * rest as it arrives, with back-pressure: never read whole, as node:stream/consumers would, for
 * the body is not to be buffered), and Sentry's answer handed back with the headers the SDK
 * needs. Sentry has `timeoutMs` from the start of the forward to answer, a wait for a pooled
 * connection included (then 504); unreachable, it is a 502. An envelope whose body is still
 * arriving goes on the streaming pool (below), and a client may have at most
 * `streamingForwards.perClient` of those at once (then 429): slow clients cannot hold the
 * connections that whole envelopes go on (docs/decisions/0611).
 */
export function forwardToSentry(exchange: Exchange, destination: Destination, ended: boolean) {
  new Forward(exchange).start(destination, ended);
}

/** The headers sent to Sentry: the envelope's type and length, and who the client is. */
function forwardedHeaders(req: IncomingMessage): HeaderList {
  const headers: HeaderList = [
    'content-type',
    req.headers['content-type'] ?? 'application/x-sentry-envelope',
    // The visitor behind any trusted proxy (TRUSTED_PROXIES), not the proxy.
    'x-sentry-forwarded-for',
    requestClientAddress(req) ?? '',
  ];
  const length = req.headers['content-length'];
  if (length !== undefined) headers.push('content-length', length);
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    if (value !== undefined) headers.push(name, value);
  }
  return headers;
}

class Forward {
  private upstream: ClientRequest | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly exchange: Exchange) {}

  start(destination: Destination, ended: boolean): void {
    const { exchange } = this;
    const { req, options } = exchange;
    // Whole: the body has ended, or every byte it announced is here.
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    // A body still streaming holds its client's slot (./tunnel.server.ts) and goes on the
    // streaming pool, so that slow clients can only hold that one.
    const streaming = !ended && exchange.received !== declared;
    const upstream = options.upstream.post(
      destination.envelopeUrl,
      forwardedHeaders(req),
      streaming ? 'streaming' : 'whole',
    );
    this.upstream = upstream;
    exchange.cancelForward = () => this.abort();
    this.timer = setTimeout(this.onTimeout, options.timeoutMs);
    upstream.on('response', this.onResponse);
    upstream.on('error', this.onError);
    for (const chunk of exchange.head) upstream.write(chunk);
    exchange.head = [];
    if (ended) {
      upstream.end();
      return;
    }
    exchange.read(this.onBodyData, this.onBodyEnd);
  }

  private readonly onBodyData = (chunk: Buffer): void => {
    const { exchange } = this;
    exchange.received += chunk.length;
    if (exchange.received > exchange.options.maxBytes) {
      // Sentry must never get a complete envelope: destroying the request before its last
      // byte (or the final empty chunk) leaves Sentry a truncated body, which it drops.
      this.abort();
      exchange.rejectAndClose(
        413,
        `envelope over ${exchange.options.maxBytes} bytes (while streaming)`,
      );
      return;
    }
    const upstream = this.upstream as ClientRequest;
    if (!upstream.write(chunk)) {
      exchange.req.pause();
      upstream.once('drain', this.resumeClient);
    }
  };

  private readonly resumeClient = (): void => {
    this.exchange.req.resume();
  };

  private readonly onBodyEnd = (): void => {
    this.upstream?.end();
  };

  private readonly onResponse = (answer: IncomingMessage): void => {
    const { exchange } = this;
    const { res } = exchange;
    if (exchange.answered) {
      answer.resume();
      return;
    }
    const headers: OutgoingHttpHeaders = {};
    for (const name of ANSWER_HEADERS) {
      const value = answer.headers[name];
      if (value !== undefined) headers[name] = value;
    }
    try {
      res.writeHead(answer.statusCode ?? 502, headers);
    } catch (error) {
      // A header value Node refuses to send on: this runs in an event handler, where a throw
      // would take the whole server down.
      answer.resume();
      this.abort();
      exchange.reject(502, `unusable answer from Sentry: ${(error as Error).message}`);
      return;
    }
    exchange.answered = true;
    // Sentry's answers are a few bytes: hand them on in one write when they fit one chunk.
    let pending: Buffer | undefined;
    answer.on('data', (chunk: Buffer) => {
      if (pending) res.write(pending);
      pending = chunk;
    });
    answer.on('end', () => {
      this.clearTimer();
      res.end(pending);
      // Sentry answered before the whole envelope was sent: that request can never finish.
      if (!this.upstream?.writableEnded) this.abort();
      if (exchange.options.debug) {
        exchange.options.log(`[tunnel] ${answer.statusCode} forwarded ${exchange.received} bytes`);
      }
    });
    answer.on('error', () => res.destroy());
    // Sentry answered before the whole body arrived (e.g. 429): drop the rest politely.
    if (!exchange.req.complete) exchange.discardRest();
  };

  private readonly onError = (error: NodeJS.ErrnoException): void => {
    this.clearTimer();
    const { exchange } = this;
    if (exchange.answered) {
      // Sentry's answer broke off half-way: the client must not take it for a whole one.
      if (!exchange.res.writableEnded) exchange.res.destroy();
      return;
    }
    exchange.rejectAndClose(502, `Sentry unreachable: ${error.code ?? error.message}`);
  };

  private readonly onTimeout = (): void => {
    this.timer = undefined;
    this.abort();
    const { exchange } = this;
    if (exchange.answered) {
      if (!exchange.res.writableEnded) exchange.res.destroy();
      return;
    }
    exchange.rejectAndClose(504, `no answer from Sentry within ${exchange.options.timeoutMs} ms`);
  };

  private abort(): void {
    const { upstream } = this;
    if (!upstream) return;
    upstream.off('error', this.onError);
    upstream.on('error', ignore);
    upstream.destroy();
    this.clearTimer();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Header names and values, alternating: ['content-type', 'application/x-sentry-envelope', …]. */
export type HeaderList = string[];

/** Connections to one Sentry host in each pool, for the whole server (each worker its share). */
export const POOL_SOCKETS = 64;

/** Whether the envelope has arrived whole, or is still streaming in from its client. */
export type UpstreamPool = 'whole' | 'streaming';

export interface Upstream {
  /** Starts a POST to `url` on `pool`'s connections; the Host header is added here. */
  post(url: URL, headers: HeaderList, pool: UpstreamPool): ClientRequest;
  close(): void;
}

/** Where a request for an envelope URL goes, and the Host header it carries. */
export interface RequestTarget {
  secure: boolean;
  /** For the socket: an IPv6 address without its brackets. */
  host: string;
  port: number | undefined;
  path: string;
  /** As URL.host has it: brackets for IPv6, the port only when it is not the scheme's default. */
  hostHeader: string;
}

export function requestTargetOf(url: URL): RequestTarget {
  return {
    secure: url.protocol === 'https:',
    host: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    hostHeader: url.host,
  };
}

interface Target extends RequestTarget {
  send: typeof request;
  agents: Record<UpstreamPool, HttpAgent>;
}

/**
 * Requests to Sentry's envelope endpoint over kept-alive connections, shared by every request,
 * so a busy tunnel does not pay a TCP (and TLS) handshake per envelope. The connections are
 * pooled and bounded: one per slow client made 900 sockets to Sentry from 900 slow bodies, and
 * the process ran out of descriptors. Two pools per scheme, each at most `POOL_SOCKETS`
 * connections to one Sentry host (requests past it wait their turn, within the tunnel's
 * timeout): one for envelopes that have arrived whole, the usual case, and one for envelopes
 * still streaming in, so that slow clients can hold the second at most (docs/decisions/0611).
 *
 * This runs once per envelope, so it is written for Node's cheapest request path
 * (docs/decisions/0102-tunnel-fast-path.md): the per-destination parts are worked out once,
 * the options object has the same few keys every time, and headers go as a flat
 * [name, value, …] list, which Node validates and writes straight out instead of storing each.
 *
 * `maxSockets`: each pool's connections per Sentry host (a worker's share of POOL_SOCKETS).
 */
export function createUpstream(maxSockets = POOL_SOCKETS): Upstream {
  // Idle sockets are closed after a minute (sooner when the server's Keep-Alive hint says so;
  // Node only applies that hint when the agent has a timeout of its own).
  const options = { keepAlive: true, timeout: 60_000, maxSockets };
  const http = { whole: new HttpAgent(options), streaming: new HttpAgent(options) };
  const https = { whole: new HttpsAgent(options), streaming: new HttpsAgent(options) };
  // The allowed destinations are few and live as long as the process.
  const targets = new WeakMap<URL, Target>();
  const targetOf = (url: URL): Target => {
    let target = targets.get(url);
    if (!target) {
      const parts = requestTargetOf(url);
      target = {
        ...parts,
        send: parts.secure ? httpsRequest : request,
        agents: parts.secure ? https : http,
      };
      targets.set(url, target);
    }
    return target;
  };
  return {
    post(url, headers, pool) {
      const target = targetOf(url);
      headers.push('host', target.hostHeader);
      return target.send({
        host: target.host,
        port: target.port,
        path: target.path,
        method: 'POST',
        agent: target.agents[pool],
        headers,
      });
    },
    close() {
      for (const agent of [http.whole, http.streaming, https.whole, https.streaming]) {
        agent.destroy();
      }
    },
  };
}
