/**
 * The tunnel over plain Node streams: one POST /monitoring exchange, from the query check to
 * Sentry's answer. Framework-free (node:http request and response in, nothing thrown out), so
 * the h3 glue stays thin and the benchmark can run it on a bare node:http server too.
 *
 * Order: method, query, allow-list (no body read yet), Content-Length, header line (at most
 * 64 KiB read), header DSN, then either stream header + rest to Sentry byte for byte, or
 * (local inbox mode) store the bounded envelope. Every path answers exactly once.
 *
 * The whole body must arrive within `bodyTimeoutMs` of the start (else 408). An answer that
 * leaves a body unread for good (408, 413, 502, 504) closes the connection once written;
 * the other rejections drain the rest politely until that same deadline
 * (docs/decisions/0101, 0104).
 */

import type {
  ClientRequest,
  IncomingMessage,
  OutgoingHttpHeaders,
  ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { isInboxBusy } from '#app/server/inbox/inbox-writer-protocol';
import type { AllowList, Destination } from './allow-list';
import type { ByteBudget } from './byte-budget';
import { HeaderLineScanner, parseEnvelopeHeader } from './envelope-header';
import { parseTunnelQuery } from './query-schema';
import type { HeaderList, Upstream } from './upstream';

export interface TunnelOptions {
  allowList: AllowList;
  maxBytes: number;
  /** How long Sentry has to answer, from the moment the forward begins. */
  timeoutMs: number;
  /** How long the client has to send the whole envelope, from the start of the exchange. */
  bodyTimeoutMs: number;
  upstream: Upstream;
  /**
   * Where envelopes for the local inbox DSN go; resolves once stored. A rejection answers 500,
   * or 503 when it says the store is busy (inbox-writer-protocol.ts `isInboxBusy`).
   */
  storeLocally(envelope: Uint8Array): Promise<void>;
  /** What local envelopes being received may hold in memory, all together (then 503). */
  localBuffer: ByteBudget;
  /** One line per rejected or failed request; never envelope contents. */
  log(line: string): void;
  /** Also log every forwarded envelope. */
  debug: boolean;
}

export type TunnelHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The headers of Sentry's answer the SDK needs (it reads rate limits on 200s too). */
const ANSWER_HEADERS = ['content-type', 'content-length', 'retry-after', 'x-sentry-rate-limits'];
/** Client headers Sentry uses (Origin/Referer for the project's allowed domains). */
const FORWARDED_HEADERS = ['user-agent', 'origin', 'referer'] as const;
/** How much of a rejected body is read and dropped before the connection is closed instead. */
const DISCARD_AT_LEAST = 8 * 1024 * 1024;

export function createTunnel(options: TunnelOptions): TunnelHandler {
  return (req, res) =>
    new Promise<void>((done) => {
      res.once('close', done);
      try {
        new Exchange(req, res, options).start();
      } catch (error) {
        // A bug must not take the server down: answer 500 and log it.
        options.log(
          `[tunnel] 500 internal error: ${error instanceof Error ? error.message : error}`,
        );
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('tunnel error');
        req.resume();
      }
    });
}

class Exchange {
  private received = 0;
  private head: Buffer[] = [];
  private readonly scanner = new HeaderLineScanner();
  private candidates: readonly Destination[] = [];
  private upstreamRequest: ClientRequest | undefined;
  private timer: NodeJS.Timeout | undefined;
  private bodyTimer: NodeJS.Timeout | undefined;
  /** The client got (or is getting) its answer; later events only clean up. */
  private answered = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly options: TunnelOptions,
  ) {}

  start(): void {
    const { req, options } = this;
    if (!req.complete) {
      this.bodyTimer = setTimeout(this.onBodyTimeout, options.bodyTimeoutMs);
      // Not the response's 'close': that comes once the answer is out, while a rejected body
      // may still be draining, and the deadline must bound that too.
      req.once('end', this.clearBodyTimer);
      req.once('close', this.clearBodyTimer);
    }
    if (req.method !== 'POST') {
      this.reject(405, `method ${req.method} not allowed`, { allow: 'POST' });
      return;
    }
    const query = parseTunnelQuery(req.url ?? '');
    if (!query.ok) {
      this.reject(400, query.reason);
      return;
    }
    const candidates = options.allowList.candidatesFor(query.target);
    if (!candidates) {
      const { o, p, r } = query.target;
      this.reject(403, `no allowed DSN for o=${o} p=${p}${r ? ` r=${r}` : ''}`);
      return;
    }
    this.candidates = candidates;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > options.maxBytes) {
      this.rejectAndClose(413, `envelope of ${declared} bytes is over ${options.maxBytes}`);
      return;
    }
    req.on('data', this.onHeadData);
    req.on('end', this.onHeadEnd);
    req.on('error', this.onClientError);
    this.res.once('close', this.onClientClose);
  }

  // --- Phase 1: up to the end of the header line ---------------------------------------

  private readonly onHeadData = (chunk: Buffer): void => {
    this.received += chunk.length;
    if (this.received > this.options.maxBytes) {
      this.rejectAndClose(413, `envelope over ${this.options.maxBytes} bytes`);
      return;
    }
    this.head.push(chunk);
    const newline = this.scanner.push(chunk);
    if (newline === 'too-long') {
      this.reject(400, 'no envelope header line within 64 KiB');
      return;
    }
    if (newline === -1) return;
    const line =
      this.head.length === 1
        ? chunk.subarray(0, newline)
        : Buffer.concat(this.head).subarray(0, this.received - chunk.length + newline);
    this.stopReadingHead();
    this.route(line, false);
  };

  private readonly onHeadEnd = (): void => {
    if (this.received === 0) {
      this.reject(400, 'empty envelope');
      return;
    }
    // A body without a newline is a header line alone (no items).
    this.stopReadingHead();
    this.route(Buffer.concat(this.head), true);
  };

  private stopReadingHead(): void {
    this.req.off('data', this.onHeadData);
    this.req.off('end', this.onHeadEnd);
  }

  private route(line: Uint8Array, ended: boolean): void {
    // This runs in a stream event handler, where a throw would escape every answer path (the
    // request would hang, a bare node:http server would crash): answer 500 instead.
    try {
      this.routeChecked(line, ended);
    } catch (error) {
      this.options.log(
        `[tunnel] 500 internal error: ${error instanceof Error ? error.message : error}`,
      );
      this.reject(500, 'tunnel error');
    }
  }

  private routeChecked(line: Uint8Array, ended: boolean): void {
    const header = parseEnvelopeHeader(line);
    if (!header.ok) {
      this.reject(400, header.reason);
      return;
    }
    const destination = this.options.allowList.match(this.candidates, header.dsn);
    if (!destination) {
      this.reject(403, 'envelope DSN is not the allowed DSN the query names');
      return;
    }
    if (destination.local) this.store(header.eventId, ended);
    else this.forward(destination, ended);
  }

  // --- Phase 2a: stream to Sentry ---------------------------------------------------------

  private forward(destination: Destination, ended: boolean): void {
    const { req, options } = this;
    const headers: HeaderList = [
      'content-type',
      req.headers['content-type'] ?? 'application/x-sentry-envelope',
      'x-sentry-forwarded-for',
      req.socket.remoteAddress ?? '',
    ];
    const length = req.headers['content-length'];
    if (length !== undefined) headers.push('content-length', length);
    for (const name of FORWARDED_HEADERS) {
      const value = req.headers[name];
      if (value !== undefined) headers.push(name, value);
    }
    const upstream = options.upstream.post(destination.envelopeUrl, headers);
    this.upstreamRequest = upstream;
    this.timer = setTimeout(this.onTimeout, options.timeoutMs);
    upstream.on('response', this.onUpstreamResponse);
    upstream.on('error', this.onUpstreamError);
    for (const chunk of this.head) upstream.write(chunk);
    this.head = [];
    if (ended) {
      upstream.end();
      return;
    }
    req.on('data', this.onBodyData);
    req.on('end', this.onBodyEnd);
  }

  private readonly onBodyData = (chunk: Buffer): void => {
    this.received += chunk.length;
    if (this.received > this.options.maxBytes) {
      // Sentry must never get a complete envelope: destroying the request before its last
      // byte (or the final empty chunk) leaves Sentry a truncated body, which it drops.
      this.abortUpstream();
      this.rejectAndClose(413, `envelope over ${this.options.maxBytes} bytes (while streaming)`);
      return;
    }
    const upstream = this.upstreamRequest as ClientRequest;
    if (!upstream.write(chunk)) {
      this.req.pause();
      upstream.once('drain', this.resumeClient);
    }
  };

  private readonly resumeClient = (): void => {
    this.req.resume();
  };

  private readonly onBodyEnd = (): void => {
    this.upstreamRequest?.end();
  };

  private readonly onUpstreamResponse = (answer: IncomingMessage): void => {
    const { res } = this;
    if (this.answered) {
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
      this.abortUpstream();
      this.reject(502, `unusable answer from Sentry: ${(error as Error).message}`);
      return;
    }
    this.answered = true;
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
      if (!this.upstreamRequest?.writableEnded) this.abortUpstream();
      if (this.options.debug) {
        this.options.log(`[tunnel] ${answer.statusCode} forwarded ${this.received} bytes`);
      }
    });
    answer.on('error', () => res.destroy());
    // Sentry answered before the whole body arrived (e.g. 429): drop the rest politely.
    if (!this.req.complete) this.discardRest();
  };

  private readonly onUpstreamError = (error: NodeJS.ErrnoException): void => {
    this.clearTimer();
    if (this.answered) {
      // Sentry's answer broke off half-way: the client must not take it for a whole one.
      if (!this.res.writableEnded) this.res.destroy();
      return;
    }
    this.rejectAndClose(502, `Sentry unreachable: ${error.code ?? error.message}`);
  };

  private readonly onTimeout = (): void => {
    this.timer = undefined;
    this.abortUpstream();
    if (this.answered) {
      if (!this.res.writableEnded) this.res.destroy();
      return;
    }
    this.rejectAndClose(504, `no answer from Sentry within ${this.options.timeoutMs} ms`);
  };

  private readonly onBodyTimeout = (): void => {
    this.bodyTimer = undefined;
    if (this.req.complete) return;
    if (this.answered) {
      // A rejection still draining, or Sentry answered early: the rest is not worth waiting for.
      this.closeAfterAnswer();
      return;
    }
    // Sentry must never get a complete envelope: the request is cut short, as for a 413.
    this.abortUpstream();
    this.rejectAndClose(408, `envelope not complete within ${this.options.bodyTimeoutMs} ms`);
  };

  private readonly clearBodyTimer = (): void => {
    if (this.bodyTimer) clearTimeout(this.bodyTimer);
    this.bodyTimer = undefined;
  };

  private abortUpstream(): void {
    const upstream = this.upstreamRequest;
    if (!upstream) return;
    upstream.off('error', this.onUpstreamError);
    upstream.on('error', ignore);
    upstream.destroy();
    this.clearTimer();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  // --- Phase 2b: local inbox --------------------------------------------------------------

  private store(eventId: string | undefined, ended: boolean): void {
    // Held whole until written: every exchange's bytes count against one shared budget, given
    // back when the exchange ends, however it ends.
    const budget = this.options.localBuffer;
    let held = 0;
    this.res.once('close', () => budget.give(held));
    const hold = (bytes: number): boolean => {
      if (!budget.take(bytes)) {
        this.head = [];
        this.rejectAndClose(503, 'local inbox busy: too many envelopes arriving at once', {
          'retry-after': '5',
        });
        return false;
      }
      held += bytes;
      return true;
    };
    if (!hold(this.received)) return;
    const save = () => {
      const envelope = this.head.length === 1 ? (this.head[0] as Buffer) : Buffer.concat(this.head);
      this.head = [];
      // Through a promise, so that a synchronous throw is answered like a rejection.
      Promise.resolve(envelope)
        .then((bytes) => this.options.storeLocally(bytes))
        .then(
          () => {
            this.answer(200, JSON.stringify(eventId ? { id: eventId } : {}), 'application/json');
            if (this.options.debug)
              this.options.log(`[tunnel] 200 stored ${envelope.length} bytes locally`);
          },
          (error: unknown) => {
            if (isInboxBusy(error)) {
              // Too many writes waiting: overload, answered like a full receive buffer.
              this.fail(503, 'local inbox busy: too many envelopes being written', {
                'retry-after': '5',
              });
              return;
            }
            // The error names server paths: it goes to the log, not to the client.
            this.options.log(
              `[tunnel] 500 local inbox failed: ${error instanceof Error ? error.message : error}`,
            );
            this.answer(500, 'local inbox failed', 'text/plain; charset=utf-8');
          },
        );
    };
    if (ended) {
      save();
      return;
    }
    // Bounded by maxBytes, so holding it whole is fine here.
    this.req.on('data', (chunk: Buffer) => {
      if (this.answered) return;
      this.received += chunk.length;
      if (this.received > this.options.maxBytes) {
        this.head = [];
        this.rejectAndClose(413, `envelope over ${this.options.maxBytes} bytes`);
        return;
      }
      if (hold(chunk.length)) this.head.push(chunk);
    });
    this.req.on('end', () => {
      if (!this.answered) save();
    });
  }

  // --- Answers and clean-up --------------------------------------------------------------

  private readonly onClientError = (): void => {
    // The client went away; 'close' below cleans up.
  };

  private readonly onClientClose = (): void => {
    if (this.req.complete) return;
    // The body broke off: whatever reached Sentry is incomplete, stop it there.
    if (this.upstreamRequest && !this.answered) {
      this.abortUpstream();
      this.options.log('[tunnel] client closed the connection before the envelope was complete');
    }
    this.answered = true;
  };

  /** Rejects the request: one log line, a short plain-text answer, the rest of the body discarded. */
  private reject(status: number, reason: string, headers?: OutgoingHttpHeaders): void {
    this.fail(status, reason, headers);
    this.discardRest();
  }

  /**
   * For answers after which the rest of the body is worth nothing and the client is slow or
   * oversized: reading on would hold the socket for as long as the client likes. A body that
   * has fully arrived leaves the connection reusable.
   */
  private rejectAndClose(status: number, reason: string, headers?: OutgoingHttpHeaders): void {
    if (this.req.complete || this.answered) {
      this.reject(status, reason, headers);
      return;
    }
    this.fail(status, reason, { ...headers, connection: 'close' });
    this.closeAfterAnswer();
  }

  /**
   * Closes the connection once the answer is written. Until then the body is still read and
   * dropped: unread bytes in the socket would turn the close into a reset that can beat the
   * answer to the client.
   */
  private closeAfterAnswer(): void {
    const { req, res } = this;
    this.stopReading();
    req.on('error', ignore);
    req.resume();
    const socket = req.socket;
    if (res.writableFinished || !res.headersSent) closeGently(socket);
    else res.once('finish', () => closeGently(socket));
  }

  private fail(status: number, reason: string, headers?: OutgoingHttpHeaders): void {
    if (this.answered) return;
    this.options.log(`[tunnel] ${status} ${reason}`);
    this.answer(status, reason, 'text/plain; charset=utf-8', headers);
  }

  private answer(status: number, body: string, type: string, headers?: OutgoingHttpHeaders): void {
    this.answered = true;
    const { res } = this;
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, {
      ...headers,
      'content-type': type,
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  }

  private stopReading(): void {
    const { req } = this;
    this.head = [];
    req.off('data', this.onHeadData);
    req.off('end', this.onHeadEnd);
    req.off('data', this.onBodyData);
    req.off('end', this.onBodyEnd);
  }

  /**
   * Reads and drops the rest of a rejected body, so the client reads our answer instead of a
   * connection reset and the connection stays usable. Past a bound it is not worth the
   * bandwidth: the socket is closed, long after the answer went out.
   */
  private discardRest(): void {
    const { req } = this;
    this.stopReading();
    if (req.complete || req.destroyed) return;
    let discarded = 0;
    const limit = Math.max(4 * this.options.maxBytes, DISCARD_AT_LEAST);
    req.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > limit) req.socket.destroy();
    });
    req.on('error', ignore);
    req.resume();
  }
}

function ignore(): void {}

/**
 * How long a connection closed after an answer may linger, still read and dropped, before it is
 * destroyed: time for the client to read the answer and close its side.
 */
const CLOSE_LINGER_MS = 2_000;

/**
 * Ends our side (FIN) and keeps reading until the client closes, at most CLOSE_LINGER_MS. A
 * destroy at once, with a still-sending client's bytes arriving, makes the kernel answer with a
 * reset, and a reset can make the client's kernel drop the answer it has not yet read: under
 * load, one slow client in twenty never saw its 408.
 */
function closeGently(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  const timer = setTimeout(() => socket.destroy(), CLOSE_LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
