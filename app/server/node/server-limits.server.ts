/**
 * The Node server's limits, one flow: the numbers (timeouts, the connection cap, the
 * descriptor limit they are derived from), then the connection cap shared fairly between clients
 * as connections arrive. How long and how many, so that slow or idle clients cannot hold memory
 * or file descriptors; pure, so the numbers are tested without a server. Why each value:
 * docs/decisions/0600-server-limits.md.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { workerShareOf } from '#app/server/cluster/worker-count.server';
import type { ServerConfig } from '#app/server/env.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { clientKeyOf } from '#app/server/security/client-key';

/** All of a request's headers must arrive within this (slowloris). Node's default is 60 s. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** A whole request must arrive within this; at least the tunnel's body timeout plus a margin. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How often Node checks the two timeouts above (its default, 30 s, lets them overrun by that much). */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
/** A socket with no traffic either way for this long is closed (a client that stopped reading). */
export const IDLE_SOCKET_TIMEOUT_MS = 60_000;
/** At shutdown, in-flight requests get this long to finish before their connections are cut. */
export const SHUTDOWN_DRAIN_MS = 20_000;
/**
 * Open connections are capped here even when the descriptor limit would allow more, for the
 * whole server: each of its workers takes its share. At the cap a newcomer replaces an idle or
 * slow connection (`createConnectionTable`).
 */
export const MAX_CONNECTIONS = 10_000;
/**
 * Pages rendering at once (./admission.server.ts): until each has sent its shell, not until it has
 * streamed its last deferred part.
 */
export const CONCURRENT_RENDERS = 8;
/**
 * Pages open at once, rendering or streaming (shell sent, response not ended); at most the
 * connection cap. A stream keeps its page's state until it ends: this bounds that memory.
 */
export const MAX_OPEN_PAGES = 1_000;
/** Server-function calls running at once: a line of their own, apart from pages. */
export const CONCURRENT_SERVER_FUNCTION_CALLS = 8;
/**
 * Sign-in and sign-out calls running at once: a lane of their own, apart from the other calls,
 * so that the operator can sign in whatever holds those (./admission.server.ts).
 */
export const CONCURRENT_INBOX_ACCESS_CALLS = 2;
/**
 * Server-function calls one client may have running or waiting at once (past it, 429): half the
 * places, so that one client trickling its bodies cannot take every place (8 such calls held
 * sign-in, sign-out and the home page's calls for everyone, 30 s at a time).
 */
export const SERVER_FUNCTION_CALLS_PER_CLIENT = CONCURRENT_SERVER_FUNCTION_CALLS / 2;
/**
 * How long renders may keep one turn of the event loop before the rest wait for the next
 * (./admission.server.ts). Two turns, one to accept and one to read, must fit well inside the 100 ms
 * that /health and the tunnel are promised under load.
 */
export const RENDER_TURN_BUDGET_MS = 5;
/**
 * How long server-function calls may start in one turn: a call costs a few tenths of a ms, so
 * 16 callers looping on a cheap public function could otherwise take their RENDER_TURN_BUDGET_MS
 * of every turn besides the pages' own, and double a page's time (issue 22's starvation bench).
 */
export const SERVER_FUNCTION_TURN_BUDGET_MS = 1;
/** Requests that may wait for a render (and as many for a server-function call); past this, a 503 at once. */
export const MAX_WAITING_RENDERS = 512;
/** A request that waited this long for its place gets a 503 instead: its client has likely given up. */
export const MAX_RENDER_WAIT_MS = 5_000;
/** Descriptors kept for everything but client sockets: files, Sentry, the inbox. */
const RESERVED_DESCRIPTORS = 256;

export interface ServerLimits {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
  idleSocketTimeout: number;
  maxConnections: number;
  /** Pages open at once, rendering or streaming (./admission.server.ts's `maxOpen`). */
  maxOpenPages: number;
}

/**
 * The limits for one of `workers` processes, each allowed `descriptorLimit` open files
 * (undefined when unknown), whose tunnel waits up to `tunnelBodyTimeoutMs` for a body and
 * `tunnelTimeoutMs` for Sentry.
 */
export function serverLimits(options: {
  descriptorLimit: number | undefined;
  tunnelBodyTimeoutMs: number;
  tunnelTimeoutMs: number;
  /** KEEP_ALIVE_TIMEOUT_MS. */
  keepAliveTimeoutMs: number;
  /** The server's worker processes (WEB_CONCURRENCY); 1 for one plain process. */
  workers: number;
}): ServerLimits {
  const { descriptorLimit, tunnelBodyTimeoutMs, tunnelTimeoutMs, keepAliveTimeoutMs, workers } =
    options;
  // The descriptor limit is each process's own; the connection cap is the server's.
  const byDescriptors =
    descriptorLimit === undefined
      ? MAX_CONNECTIONS
      : Math.max(64, Math.floor((descriptorLimit - RESERVED_DESCRIPTORS) * 0.9));
  const maxConnections = Math.min(workerShareOf(MAX_CONNECTIONS, workers), byDescriptors);
  return {
    headersTimeout: HEADERS_TIMEOUT_MS,
    // Node refuses a headersTimeout above requestTimeout; the tunnel's body must fit too.
    requestTimeout: Math.max(REQUEST_TIMEOUT_MS, tunnelBodyTimeoutMs + 5_000),
    keepAliveTimeout: keepAliveTimeoutMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    // The tunnel waits for Sentry with the socket silent, and a kept-alive socket waits for
    // its next request: never cut either short.
    idleSocketTimeout: Math.max(
      IDLE_SOCKET_TIMEOUT_MS,
      tunnelTimeoutMs + 5_000,
      keepAliveTimeoutMs + 5_000,
    ),
    maxConnections,
    // Each open page is a connection: past the cap, the connection is refused before the page.
    maxOpenPages: Math.min(MAX_OPEN_PAGES, maxConnections),
  };
}

/** The soft "Max open files" from /proc/self/limits text; undefined when not found. */
export function descriptorLimitOf(procLimits: string): number | undefined {
  const match = /^Max open files\s+(\d+|unlimited)\s/m.exec(procLimits);
  if (!match || match[1] === 'unlimited') return undefined;
  return Number(match[1]);
}

/** The limits of this process of the built server, from its configuration and the machine's. */
export function serverLimitsFor(config: ServerConfig): ServerLimits {
  return serverLimits({
    descriptorLimit: readDescriptorLimit(),
    tunnelBodyTimeoutMs: config.tunnelBodyTimeoutMs,
    tunnelTimeoutMs: config.tunnelTimeoutMs,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    workers: config.workers,
  });
}

/** This process's descriptor limit; undefined when unknown. */
export function readDescriptorLimit(): number | undefined {
  try {
    return descriptorLimitOf(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return undefined; // not Linux: the fixed cap applies
  }
}

/**
 * The limits a server gets once made: its keep-alive and idle timeouts, and the connection cap
 * shared fairly between clients. Not server.maxConnections: Node would drop a newcomer before
 * anyone could make room for it. With several workers, each takes its share of a client's
 * connections as of the server's: connections are handed to the workers in turn
 * (docs/production.md#workers).
 */
export function applyServerLimits(
  server: Server,
  limits: ServerLimits,
  config: ServerConfig,
): void {
  server.keepAliveTimeout = limits.keepAliveTimeout;
  server.setTimeout(limits.idleSocketTimeout);
  shareConnections(
    server,
    {
      maxConnections: limits.maxConnections,
      perClient: workerShareOf(config.maxConnectionsPerClient, config.workers),
      // A trusted proxy's connections carry its visitors: the proxy limits each of them.
      uncapped: (address) => address !== undefined && config.trustedProxies.trusts(address, 0),
    },
    config.workers === 1
      ? 'MAX_CONNECTIONS_PER_CLIENT'
      : `this worker's share of MAX_CONNECTIONS_PER_CLIENT=${config.maxConnectionsPerClient} over ${config.workers} workers`,
  );
}

/**
 * The server's connections shared fairly between clients (decision 0600): `createConnectionTable`
 * says who holds how many, and this hook closes the sockets, refusing a newcomer over its share
 * instead of dropping it. It takes over the server-wide cap from Node: `server.maxConnections`
 * drops a connection before any handler sees it, so a server full of slow connections refused
 * everyone new (from 12 addresses × 1,000 slow connections, a new client's /health and /about
 * were reset 21 times out of 24). Here a newcomer is let in by closing a connection that serves
 * no request, of the client holding the most. Counted per connection and per request start
 * and end; nothing else is added to a request's path. `perClientSource`: where
 * `limits.perClient` comes from, for the refusal's log line.
 */
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
 * Pure: connections are whatever ids the caller gives (sockets, in `shareConnections` below;
 * numbers in the tests), and the table only says what to close.
 */
export interface ConnectionLimits {
  /** Open connections, all clients together. */
  maxConnections: number;
  /** Open connections of one client; 0: no cap. */
  perClient: number;
  /**
   * Peers never capped per client (trusted proxies, TRUSTED_PROXIES): a connection is counted
   * before any header says whom it carries, and a proxy's carry every visitor
   * (docs/decisions/1020-trusted-proxies.md). They still count toward `maxConnections`.
   */
  uncapped?: (address: string | undefined) => boolean;
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
      if (limits.perClient > 0 && held >= limits.perClient && !limits.uncapped?.(address)) {
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
