/**
 * How one tunnel exchange is answered: once, then drained or closed gently; the 408 deadline for
 * a body that stops arriving; and the tunnel's words, its log lines and the reasons it answers
 * with, as pure functions, so that what an operator reads is tested as a table
 * (tests/unit/server/tunnel/tunnel.test.ts).
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TunnelTarget } from '#app/monitoring/dsn';
import { requestClientKey } from '#app/server/security/client-key';
import { clientRateHeaders, clientShareHeaders } from './client-limits';
import type { TunnelOptions } from './tunnel.server';

/** How much of a rejected body is read and dropped before the connection is closed instead. */
const DISCARD_AT_LEAST = 8 * 1024 * 1024;

export const PLAIN_TEXT = 'text/plain; charset=utf-8';

type Reader = { onData: (chunk: Buffer) => void; onEnd: () => void };

/** For 'error' events that are expected once we have given up on a stream. */
export function ignore(): void {}

/**
 * One POST /monitoring exchange: what has been read so far, and the ways it is answered. Every
 * path answers exactly once. An answer that leaves a body unread for good (408, 413, 502, 504)
 * closes the connection once written; the other rejections drain the rest politely until the
 * body deadline (docs/decisions/0101, 0104).
 */
export class Exchange {
  /** Body bytes read so far. */
  received = 0;
  /** Chunks held for the next phase: the header line, and in local inbox mode the rest. */
  head: Buffer[] = [];
  /** The client got (or is getting) its answer; later events only clean up. */
  answered = false;
  /** Set once a forward to Sentry is under way: stops it before Sentry gets the whole body. */
  cancelForward: (() => void) | undefined;
  private readers: Reader[] = [];
  private clientKey: string | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly options: TunnelOptions,
  ) {}

  /**
   * Who sent it, for the per-client shares: an IPv4 address or an IPv6 /64, behind any trusted
   * proxy (TRUSTED_PROXIES).
   */
  get client(): string {
    this.clientKey ??= requestClientKey(this.req);
    return this.clientKey;
  }

  /**
   * 429 for a client past its share of what slow uploads may hold, with the headers that make
   * the SDK wait; the line is rate-limited (a flood of them is the point of the share).
   */
  overShare(reason: string): void {
    this.tooMuch(reason, clientShareHeaders(this.options.bodyTimeoutMs));
  }

  /** Past the client's rate into the local inbox: 429, and the SDK waits `retryAfterSeconds`. */
  overRate(reason: string, retryAfterSeconds: number): void {
    this.tooMuch(reason, clientRateHeaders(retryAfterSeconds));
  }

  /** A 429 with `headers`; as rejectAndClose, the rest of a slow body is not waited for. */
  private tooMuch(reason: string, headers: Record<string, string>): void {
    if (this.answered) return;
    this.options.logLimited('tunnel 429', tunnelLogLine(429, reason));
    if (this.req.complete) {
      this.answer(429, reason, PLAIN_TEXT, headers);
      this.discardRest();
      return;
    }
    this.answer(429, reason, PLAIN_TEXT, { ...headers, connection: 'close' });
    this.closeAfterAnswer();
  }

  /**
   * Holds one of the client's slots for envelopes still arriving until the body has ended or
   * the exchange closed; false (and a 429 sent) when the client holds them all. Slow uploads
   * serve a request, so no connection eviction would close them: this is their bound.
   */
  holdArrivingSlot(): boolean {
    const slots = this.options.streamingForwards;
    const client = this.client;
    if (!slots.enter(client)) {
      this.overShare(`client ${client} has ${slots.perClient} envelopes arriving already`);
      return false;
    }
    let held = true;
    const leave = () => {
      if (!held) return;
      held = false;
      slots.leave(client);
    };
    this.req.once('end', leave);
    this.res.once('close', leave);
    return true;
  }

  /** Reads the body with these listeners until the returned stop, or until an answer stops all. */
  read(onData: (chunk: Buffer) => void, onEnd: () => void): () => void {
    const reader = { onData, onEnd };
    this.req.on('data', onData);
    this.req.on('end', onEnd);
    this.readers.push(reader);
    return () => this.stop(reader);
  }

  /** From here on, a client that goes away before its body is complete cuts the forward short. */
  watchClient(): void {
    // The client went away; 'close' below cleans up.
    this.req.on('error', ignore);
    this.res.once('close', this.onClientClose);
  }

  private readonly onClientClose = (): void => {
    if (this.req.complete) return;
    // The body broke off: whatever reached Sentry is incomplete, stop it there.
    if (this.cancelForward && !this.answered) {
      this.cancelForward();
      this.options.log('[tunnel] client closed the connection before the envelope was complete');
    }
    this.answered = true;
  };

  /** Rejects the request: one log line, a short plain-text answer, the rest of the body discarded. */
  reject(status: number, reason: string, headers?: OutgoingHttpHeaders): void {
    this.fail(status, reason, headers);
    this.discardRest();
  }

  /**
   * For answers after which the rest of the body is worth nothing and the client is slow or
   * oversized: reading on would hold the socket for as long as the client likes. A body that
   * has fully arrived leaves the connection reusable.
   */
  rejectAndClose(status: number, reason: string, headers?: OutgoingHttpHeaders): void {
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
  closeAfterAnswer(): void {
    const { req, res } = this;
    this.stopReading();
    req.on('error', ignore);
    req.resume();
    const socket = req.socket;
    if (res.writableFinished || !res.headersSent) closeGently(socket);
    else res.once('finish', () => closeGently(socket));
  }

  /** Logs and answers `reason` as plain text, unless the client has its answer already. */
  fail(status: number, reason: string, headers?: OutgoingHttpHeaders): void {
    if (this.answered) return;
    this.options.log(tunnelLogLine(status, reason));
    this.answer(status, reason, PLAIN_TEXT, headers);
  }

  answer(status: number, body: string, type: string, headers?: OutgoingHttpHeaders): void {
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

  /**
   * Reads and drops the rest of a rejected body, so the client reads our answer instead of a
   * connection reset and the connection stays usable. Past a bound it is not worth the
   * bandwidth: the socket is closed, long after the answer went out.
   */
  discardRest(): void {
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

  private stopReading(): void {
    this.head = [];
    for (const reader of [...this.readers]) this.stop(reader);
  }

  private stop(reader: Reader): void {
    this.req.off('data', reader.onData);
    this.req.off('end', reader.onEnd);
    this.readers = this.readers.filter((other) => other !== reader);
  }
}

/**
 * The whole envelope must arrive within `bodyTimeoutMs` of the start of the exchange, else 408
 * and the connection is closed (docs/decisions/0104): a trickling client must not hold a
 * socket, or a forward to Sentry, for as long as it likes.
 */
export function enforceBodyDeadline(exchange: Exchange): void {
  const { req } = exchange;
  if (req.complete) return;
  const timer = setTimeout(() => onBodyDeadline(exchange), exchange.options.bodyTimeoutMs);
  const clear = () => clearTimeout(timer);
  // Not the response's 'close': that comes once the answer is out, while a rejected body
  // may still be draining, and the deadline must bound that too.
  req.once('end', clear);
  req.once('close', clear);
}

function onBodyDeadline(exchange: Exchange): void {
  if (exchange.req.complete) return;
  if (exchange.answered) {
    // A rejection still draining, or Sentry answered early: the rest is not worth waiting for.
    exchange.closeAfterAnswer();
    return;
  }
  // Sentry must never get a complete envelope: the request is cut short, as for a 413.
  exchange.cancelForward?.();
  exchange.rejectAndClose(408, `envelope not complete within ${exchange.options.bodyTimeoutMs} ms`);
}

/**
 * How long a connection closed after an answer may linger, still read and dropped, before it is
 * destroyed (closing without losing the answer to a reset): time for the client to read the
 * answer and close its side.
 */
const CLOSE_LINGER_MS = 2_000;

/**
 * Ends our side (FIN) and keeps reading until the client closes, at most CLOSE_LINGER_MS. A
 * destroy at once, with a still-sending client's bytes arriving, makes the kernel answer with a
 * reset, and a reset can make the client's kernel drop the answer it has not yet read: under
 * load, one slow client in twenty never saw its 408.
 */
export function closeGently(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  const timer = setTimeout(() => socket.destroy(), CLOSE_LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

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
