/**
 * A client on a raw socket that sends a request's headers and the start of its body, then
 * holds or trickles: what fetch cannot do. It records what the server sends and when the
 * server closes the connection.
 */
import { connect, type Socket } from 'node:net';

export interface SlowClient {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** The HTTP status of the server's answer, once it has arrived. */
  status(): number | undefined;
  /** Resolves when the socket closes, whoever closed it. */
  closed: Promise<void>;
  /** Whether the server ended or closed the connection (not this client). */
  closedByServer(): boolean;
  /** Resolves once the server's answer has begun to arrive. */
  answered: Promise<void>;
  /** Sends one more byte of the body every `everyMs` until the socket closes. */
  trickle(everyMs: number): void;
}

export interface SlowPost {
  /** http://127.0.0.1:port */
  origin: string;
  path: string;
  /** The Content-Length the client announces (more than it will send in time). */
  contentLength: number;
  /** The first part of the body, sent with the headers. */
  start: Uint8Array;
  /** The client's own address (127.0.0.2, …: another client on loopback). */
  localAddress?: string;
  /**
   * The connection to use instead of a new one to `origin` (one inside a network namespace,
   * tests/support/network-namespace.ts), not yet written to.
   */
  connection?: Socket;
}

/** Opens the connection and resolves once headers and `start` are on the wire. */
export function slowPost({
  origin,
  path,
  contentLength,
  start,
  localAddress,
  connection,
}: SlowPost): Promise<SlowClient> {
  const { hostname, port } = new URL(origin);
  const socket = connection ?? connect({ port: Number(port), host: hostname, localAddress });
  let text = '';
  let serverEnded = false;
  let onAnswer: () => void = () => {};
  const answered = new Promise<void>((done) => {
    onAnswer = done;
  });
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    onAnswer();
  });
  socket.on('end', () => {
    serverEnded = true;
  });
  // The tests destroy their clients only after their assertions: a reset is the server's doing.
  socket.on('error', () => {
    serverEnded = true;
  });
  const closed = new Promise<void>((done) => socket.once('close', () => done()));
  const client: SlowClient = {
    socket,
    received: () => text,
    status: () => {
      const match = /^HTTP\/1\.1 (\d{3}) /.exec(text);
      return match ? Number(match[1]) : undefined;
    },
    closed,
    closedByServer: () => serverEnded,
    answered,
    trickle(everyMs) {
      const timer = setInterval(() => {
        if (!socket.destroyed && socket.writable) socket.write('a');
      }, everyMs);
      socket.once('close', () => clearInterval(timer));
    },
  };
  return new Promise((done, fail) => {
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.off('error', fail);
      const head =
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
        `Content-Type: application/x-sentry-envelope\r\nContent-Length: ${contentLength}\r\n\r\n`;
      socket.write(head);
      socket.write(start, () => done(client));
    });
  });
}

/** Fails, naming `what`, if `promise` has not settled within `ms`: a bound, not a sleep. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
