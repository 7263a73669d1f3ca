/**
 * Graceful shutdown on SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close idle connections,
 * run nitro's close hooks; and the one flag that says the process is draining.
 */
import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { thisWorker } from '#app/server/cluster/worker-link.server';
import { processShared } from '#app/start-1.120/process-shared.server';

/**
 * SIGTERM / SIGINT: stop accepting, let in-flight requests finish (up to a bound), deliver the
 * failure reports still on their way (nitro's `close` hook, app/server/startup.server.ts),
 * then exit. Unlike `server.close()`, which drops idle kept-alive connections at once (and with
 * them a request a client may be sending on one at that moment), a connection is closed only
 * after it answered a request (every answer during shutdown says `Connection: close`, see the
 * entry) or after it stayed idle for a while.
 */
/** In-flight requests get this long to finish before their connections are cut. */
export const SHUTDOWN_DRAIN_MS = 20_000;
/** During shutdown, a connection idle this long is closed: no request is on its way on it. */
const IDLE_GRACE_MS = 1_000;
const POLL_MS = 100;

interface NitroAppLike {
  hooks: { callHook(name: 'close'): Promise<unknown> };
}

/** Node keeps the response a socket is serving here, and null between requests. */
type HttpSocket = Socket & { _httpMessage?: unknown };

export function handleShutdownSignals(server: Server, nitroApp: NitroAppLike): void {
  // Per connection, not per request: nothing is added to a request's own path.
  const sockets = new Set<HttpSocket>();
  server.on('connection', (socket: HttpSocket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  const shutdown = async (signal: string) => {
    if (isShuttingDown()) return;
    markShuttingDown();
    const worker = thisWorker();
    console.log(
      `[server] ${worker === undefined ? '' : `worker ${worker}: `}${signal}: finishing ${busy(sockets)} request(s) in flight, then exiting`,
    );
    // Stop listening without Node's closeIdleConnections(): see the header comment.
    NetServer.prototype.close.call(server);
    const idleSince = new Map<HttpSocket, number>();
    const deadline = Date.now() + SHUTDOWN_DRAIN_MS;
    while (sockets.size > 0 && Date.now() < deadline) {
      const now = Date.now();
      for (const socket of sockets) {
        if (socket._httpMessage) {
          idleSince.delete(socket);
          continue;
        }
        // A connection that served a request since the last look closed itself after it.
        const since = idleSince.get(socket);
        if (since === undefined) idleSince.set(socket, now);
        else if (now - since >= IDLE_GRACE_MS) socket.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    if (sockets.size > 0) {
      console.warn(
        `[server] ${busy(sockets)} request(s) still running after ${SHUTDOWN_DRAIN_MS} ms: closing them`,
      );
      for (const socket of sockets) socket.destroy();
    }
    try {
      await nitroApp.hooks.callHook('close');
    } catch (error) {
      console.error('[server] shutdown hook failed', error);
    }
    process.exit(0);
  };
  // Not `once`: a worker gets the terminal's SIGINT and then the primary's SIGTERM, and a
  // second signal without a listener would end the process before its requests finish.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

function busy(sockets: Set<HttpSocket>): number {
  let count = 0;
  for (const socket of sockets) if (socket._httpMessage) count++;
  return count;
}

/** Whether this process has begun its graceful shutdown: one flag per process. */
const state = processShared('shutdown-state', () => ({ shuttingDown: false }));

export function isShuttingDown(): boolean {
  return state.shuttingDown;
}

export function markShuttingDown(): void {
  state.shuttingDown = true;
}
