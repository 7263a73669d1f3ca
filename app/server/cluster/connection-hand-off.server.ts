/**
 * How the cluster's primary hands accepted connections to the workers: clients in turn, and a
 * bounded line (decision 1013).
 *
 * node:cluster's round robin (Node 20, lib/internal/cluster/round_robin_handle.js) accepts every
 * connection at once into one first-come line, and gives a worker its next connection only once
 * the worker has answered for the last (a round trip over IPC: about 1,500 a second for two
 * workers on the 2-core machine, busy). Twelve addresses reopening 10,200 tunnel posts as fast
 * as they were answered kept 8,000–9,800 connections in that line, and a newcomer's joined it
 * behind them: 5.6–10.6 s before a worker saw it, every time. Under a descriptor limit the line
 * also ran the primary out of descriptors, and libuv then closes every connection still waiting
 * in the kernel's backlog: a newcomer's, unanswered ("socket hang up").
 *
 * So the primary takes each connection out of node:cluster's hands as it is accepted, keeps it
 * in a line of its own where clients take turns, and feeds the round robin only as many as keep
 * the workers busy. A newcomer waits for one connection of each client waiting, not for every
 * connection. The line is bounded by the primary's descriptors: past it, the oldest connection
 * of the client with the most waiting is closed, as a worker evicts at its cap.
 *
 * Hooked on node:cluster's internals (the listening handle its round robin opens, the libuv
 * handles it passes around), which nothing public exposes; if their shape changes, the hook
 * stays out and says so. Retired by per-worker listening sockets (`reusePort`, Node 22.12), where
 * each worker accepts from a bounded queue of its own.
 */
import net from 'node:net';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { MAX_CONNECTIONS } from '#app/server/node/server-limits.server';
import { clientKeyOf } from '#app/server/security/client-key';

/**
 * How many connections may wait in the primary, which has `descriptorLimit` open files
 * (undefined when unknown) and `workers` workers: the server's connection cap, within what its
 * descriptors allow beside its own few (stdio, libuv's, a channel per worker and the connections
 * being handed to each). Run out of them, libuv would close what waits in the kernel's backlog.
 * Pure.
 */
export function waitingLimit(descriptorLimit: number | undefined, workers: number): number {
  if (descriptorLimit === undefined) return MAX_CONNECTIONS;
  return Math.min(MAX_CONNECTIONS, Math.max(64, descriptorLimit - 64 - 4 * workers));
}

/**
 * Connections waiting for a worker, shared between clients: each client's oldest first, the
 * clients in turn, at most `maxWaiting` in all. Pure: connections are whatever ids the caller
 * gives (libuv's handles in the primary, numbers in the tests).
 */
export interface WaitingConnections<Id> {
  /**
   * `id` from `client` arrived. Returns the connection to close for it, when the line is full:
   * the oldest of the client with the most waiting, or `id` itself when that is its own client.
   */
  arrive(id: Id, client: string): Id | undefined;
  /** The next connection to hand over: the next client's oldest. */
  next(): Id | undefined;
  /** Every connection still waiting, taken out of the line (to close them). */
  takeAll(): Id[];
  size(): number;
}

export function createWaitingConnections<Id>(maxWaiting: number): WaitingConnections<Id> {
  // A client is in `turns` exactly once while it has an entry (which may have emptied).
  const waiting = new Map<string, Line<Id>>();
  const turns = new Line<string>();
  let size = 0;

  const mostWaiting = (): [string, Line<Id>] | undefined => {
    let most: [string, Line<Id>] | undefined;
    for (const entry of waiting) if (!most || entry[1].length > most[1].length) most = entry;
    return most;
  };

  const next = (): Id | undefined => {
    for (let client = turns.shift(); client !== undefined; client = turns.shift()) {
      const own = waiting.get(client) as Line<Id>;
      const id = own.shift();
      if (own.length > 0) turns.push(client);
      else waiting.delete(client);
      if (id !== undefined) {
        size -= 1;
        return id;
      }
    }
    return undefined;
  };

  return {
    arrive(id, client) {
      let own = waiting.get(client);
      let victim: Id | undefined;
      if (size >= maxWaiting) {
        const most = mostWaiting();
        if (!most || most[1].length <= (own?.length ?? 0)) return id;
        victim = most[1].shift();
        size -= 1;
      }
      if (!own) {
        own = new Line<Id>();
        waiting.set(client, own);
        turns.push(client);
      }
      own.push(id);
      size += 1;
      return victim;
    },
    next,
    takeAll() {
      const all: Id[] = [];
      for (let id = next(); id !== undefined; id = next()) all.push(id);
      return all;
    },
    size: () => size,
  };
}

/** A first-in, first-out line whose shift costs the same however long it is. */
class Line<T> {
  private items: T[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(item: T): void {
    this.items.push(item);
  }
  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head] as T;
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

/**
 * A worker answers for a connection within a turn of its event loop; one not answered for this
 * long went to a worker that died (or is stuck, and will be replaced): the next go to the others.
 */
const HAND_OFF_LOST_AFTER_MS = 10_000;

/** An accepted connection as node:cluster's primary holds it: libuv's TCP handle, no socket. */
interface ConnectionHandle {
  getpeername(out: { address?: string }): number;
  close(callback?: () => void): void;
}

/** The listening handle node:cluster's round robin opens; it calls `onconnection` per accept. */
interface ListeningHandle {
  onconnection: (error: number, connection?: ConnectionHandle) => void;
  close(callback?: () => void): void;
}

/**
 * In the primary, before any worker listens: every listening socket node:cluster opens for its
 * round robin hands connections over through a fair line (above). `workers`: how many take
 * connections, each kept one ahead; `maxWaiting`: the line's bound.
 */
export function handOffConnectionsFairly(options: { workers: number; maxWaiting: number }): void {
  const listen = net.Server.prototype.listen;
  // The primary serves nothing itself: every server listening here is node:cluster's round robin
  // (it listens, then on 'listening' takes the handle and sets its onconnection).
  net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
    this.once('listening', () => {
      const handle = (this as unknown as { _handle?: ListeningHandle })._handle;
      // After the round robin's own 'listening' listener, registered once listen() returns.
      process.nextTick(() => gate(handle, options));
    });
    return (listen as (...a: unknown[]) => net.Server).apply(this, args);
  } as typeof listen;
}

function gate(
  handle: ListeningHandle | undefined,
  options: { workers: number; maxWaiting: number },
): void {
  const distribute = handle?.onconnection;
  if (!handle || typeof distribute !== 'function' || typeof handle.close !== 'function') {
    console.error(
      '[server] node:cluster hands connections over in a way this Node version does not show: connections go to the workers first come, first served',
    );
    return;
  }
  const line = createWaitingConnections<ConnectionHandle>(options.maxWaiting);
  // Two for each worker: the one it is being given, and its next, ready when it answers.
  const ahead = 2 * options.workers;
  /** Handed to the round robin and not yet closed by it, with when. */
  const handedOver = new Map<ConnectionHandle, number>();
  let open = true;

  const feed = () => {
    // A connection being handed to a worker as it dies is never closed by the round robin
    // (decision 0620): counted for ever, a few such would stop the hand-offs.
    const lostBefore = performance.now() - HAND_OFF_LOST_AFTER_MS;
    for (const [given, at] of handedOver) if (at < lostBefore) handedOver.delete(given);
    while (open && handedOver.size < ahead) {
      const next = line.next();
      if (next === undefined) return;
      handedOver.set(next, performance.now());
      // The round robin closes its copy once a worker has taken the connection (or every worker
      // has gone): then it may have the next.
      const close = next.close;
      next.close = function (this: ConnectionHandle, callback?: () => void) {
        next.close = close;
        handedOver.delete(next);
        close.call(this, callback);
        feed();
      };
      distribute.call(handle, 0, next);
    }
  };
  // Connections may wait while no new one arrives to feed the workers after a lost hand-off.
  const lostCheck = setInterval(feed, HAND_OFF_LOST_AFTER_MS);
  lostCheck.unref();

  handle.onconnection = (error, connection) => {
    if (error || !connection) {
      distribute.call(handle, error, connection);
      return;
    }
    const peer: { address?: string } = {};
    connection.getpeername(peer);
    const client = clientKeyOf(peer.address);
    const closed = line.arrive(connection, client);
    if (closed) {
      closed.close();
      warnLimited(
        'connection line full',
        `[server] ${options.maxWaiting} connections waiting for a worker: closed one of the client with the most waiting`,
        1,
      );
    }
    feed();
  };
  const closeListening = handle.close;
  handle.close = function (this: ListeningHandle, callback?: () => void) {
    open = false;
    clearInterval(lostCheck);
    for (const waiting of line.takeAll()) waiting.close();
    closeListening.call(this, callback);
  };
}
