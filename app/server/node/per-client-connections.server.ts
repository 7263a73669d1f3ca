/**
 * A cap on the connections one client address holds open. The server-wide cap
 * (server.maxConnections) protects file descriptors, but one client that opens thousands of
 * slow connections would still fill it, and the load balancer's probe would be refused with
 * everyone else's. Counted per connection, so a request's own path pays nothing.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { warnLimited } from '#app/server/logging/rate-limited-log';

export function capConnectionsPerClient(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      warnLimited(
        'connection refused',
        `[server] refused a connection from ${address}: it holds ${max} already (MAX_CONNECTIONS_PER_CLIENT)`,
        // One line an episode, then the minute's summary: a client over its share retries fast.
        1,
      );
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
