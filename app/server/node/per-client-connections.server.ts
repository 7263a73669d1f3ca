/**
 * Connections shared fairly between clients: the table of who holds how many, and the server
 * hook that refuses a newcomer over its share instead of dropping it (decision 0600).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { clientKeyOf } from '#app/server/security/client-key';

/**
 * The server's connections shared between clients (./connection-table.ts says who; this file
 * closes the sockets). It takes over the server-wide cap from Node: `server.maxConnections`
 * drops a connection before any handler sees it, so a server full of slow connections refused
 * everyone new (from 12 addresses × 1,000 slow connections, a new client's /health and /about
 * were reset 21 times out of 24). Here a newcomer is let in by closing a connection that serves
 * no request, of the client holding the most. Counted per connection and per request start
 * and end; nothing else is added to a request's path.
 */
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

/**
 * Who holds the server's connections, and who gives one up when they run out
 * (docs/decisions/0610-connections-shared-fairly.md). Clients are counted by `clientKeyOf` (an
 * IPv4 address, an IPv6 /64). Each client may hold `perClient` connections; when the whole
 * server holds `maxConnections`, a new one is let in by closing a connection that serves no
 * request (still sending its headers, or idle between requests): the one that has waited
 * longest, of the client that holds the most. So clients holding thousands of slow connections
 * from a dozen addresses pay for a newcomer, and the newcomer gets in.
 *
 * Pure: connections are whatever ids the caller gives (sockets, in per-client-connections.server.ts;
 * numbers in the tests), and the table only says what to close.
 */
export interface ConnectionLimits {
  /** Open connections, all clients together. */
  maxConnections: number;
  /** Open connections of one client; 0: no cap. */
  perClient: number;
}

export type Admission<Id> =
  | { kind: 'accept' }
  /** Accepted once `victim` (of `victimClient`, which held `victimHeld`) is closed. */
  | { kind: 'accept-evicting'; victim: Id; victimClient: string; victimHeld: number }
  /** `client` holds `perClient` already. */
  | { kind: 'refuse-client'; client: string }
  /** Every connection is serving a request: nothing may be closed for the newcomer. */
  | { kind: 'refuse-full'; client: string };

/** What the table knows of one client. */
export interface ClientConnections<Id> {
  open: number;
  /** Its connections that serve no request, longest waiting first. */
  evictable: Set<Id>;
}

export interface ConnectionTable<Id> {
  /** A new connection from `address`: what to do with it (it is counted unless refused). */
  open(id: Id, address: string | undefined): Admission<Id>;
  /** A request began on `id`. */
  requestStarted(id: Id): void;
  /** A request on `id` was answered (or abandoned). */
  requestEnded(id: Id): void;
  /** `id` closed, whoever closed it; a connection the table evicted is already gone. */
  closed(id: Id): void;
  size(): number;
  /** Open connections of the client `address` belongs to. */
  heldBy(address: string | undefined): number;
}

interface Entry {
  client: string;
  /** Requests in progress on it (more than one only when pipelined). */
  serving: number;
}

/**
 * Which connection to close for a newcomer: of the clients holding the most connections, the
 * first that has a connection serving no request, and of those, its longest waiting one.
 * Undefined when every connection serves a request.
 */
export function evictionVictim<Id>(
  clients: Iterable<[string, ClientConnections<Id>]>,
): { id: Id; client: string; held: number } | undefined {
  let best: { id: Id; client: string; held: number } | undefined;
  for (const [client, { open, evictable }] of clients) {
    if (best && open <= best.held) continue;
    const first = evictable.values().next();
    if (!first.done) best = { id: first.value, client, held: open };
  }
  return best;
}

export function createConnectionTable<Id>(limits: ConnectionLimits): ConnectionTable<Id> {
  const entries = new Map<Id, Entry>();
  const clients = new Map<string, ClientConnections<Id>>();

  const remove = (id: Id) => {
    const entry = entries.get(id);
    if (!entry) return;
    entries.delete(id);
    const client = clients.get(entry.client) as ClientConnections<Id>;
    client.evictable.delete(id);
    client.open -= 1;
    if (client.open === 0) clients.delete(entry.client);
  };

  return {
    open(id, address) {
      const key = clientKeyOf(address);
      const held = clients.get(key)?.open ?? 0;
      if (limits.perClient > 0 && held >= limits.perClient) {
        return { kind: 'refuse-client', client: key };
      }
      let admission: Admission<Id> = { kind: 'accept' };
      if (entries.size >= limits.maxConnections) {
        const victim = evictionVictim(clients);
        if (!victim) return { kind: 'refuse-full', client: key };
        remove(victim.id);
        admission = {
          kind: 'accept-evicting',
          victim: victim.id,
          victimClient: victim.client,
          victimHeld: victim.held,
        };
      }
      let client = clients.get(key);
      if (!client) {
        client = { open: 0, evictable: new Set() };
        clients.set(key, client);
      }
      client.open += 1;
      client.evictable.add(id);
      entries.set(id, { client: key, serving: 0 });
      return admission;
    },
    requestStarted(id) {
      const entry = entries.get(id);
      if (!entry) return;
      entry.serving += 1;
      clients.get(entry.client)?.evictable.delete(id);
    },
    requestEnded(id) {
      const entry = entries.get(id);
      if (!entry || entry.serving === 0) return;
      entry.serving -= 1;
      // Idle from now on: it goes to the back of its client's line.
      if (entry.serving === 0) clients.get(entry.client)?.evictable.add(id);
    },
    closed: remove,
    size: () => entries.size,
    heldBy: (address) => clients.get(clientKeyOf(address))?.open ?? 0,
  };
}
