/**
 * The server's connections shared between clients (./connection-table.ts says who; this file
 * closes the sockets). It takes over the server-wide cap from Node: `server.maxConnections`
 * drops a connection before any handler sees it, so a server full of slow connections refused
 * everyone new (from 12 addresses × 1,000 slow connections, a new client's /health and /about
 * were reset 21 times out of 24). Here a newcomer is let in by closing a connection that serves
 * no request, of the client holding the most. Counted per connection and per request start
 * and end; nothing else is added to a request's path.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { type ConnectionLimits, createConnectionTable } from './connection-table';

/** `perClientSource`: where `limits.perClient` comes from, for the refusal's log line. */
export function shareConnections(
  server: Server,
  limits: ConnectionLimits,
  perClientSource = 'MAX_CONNECTIONS_PER_CLIENT',
): void {
  const table = createConnectionTable<Socket>(limits);
  server.on('connection', (socket: Socket) => {
    const admission = table.open(socket, socket.remoteAddress);
    switch (admission.kind) {
      case 'refuse-client':
        socket.destroy();
        warnLimited(
          'connection refused',
          `[server] refused a connection from ${admission.client}: it holds ${limits.perClient} already (${perClientSource})`,
          // One line an episode, then the minute's summary: a client over its share retries fast.
          1,
        );
        return;
      case 'refuse-full':
        socket.destroy();
        warnLimited(
          'connection refused (full)',
          `[server] refused a connection from ${admission.client}: ${limits.maxConnections} connections open, every one serving a request`,
          1,
        );
        return;
      case 'accept-evicting':
        admission.victim.destroy();
        warnLimited(
          'connection evicted',
          `[server] ${limits.maxConnections} connections open: closed an idle or slow one of ${admission.victimClient}, which held ${admission.victimHeld}, to let a new client in`,
          1,
        );
        break;
      case 'accept':
        break;
    }
    socket.once('close', () => table.closed(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    table.requestStarted(socket);
    res.once('close', () => table.requestEnded(socket));
  });
}
