/**
 * How long and how many: the Node server's own limits, so that slow or idle clients cannot
 * hold memory or file descriptors. Pure, so the numbers are tested without a server.
 * Why each value: docs/decisions/0600-server-limits.md.
 */
import { workerShareOf } from '#app/server/cluster/worker-count';

/** All of a request's headers must arrive within this (slowloris). Node's default is 60 s. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** A whole request must arrive within this; at least the tunnel's body timeout plus a margin. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How often Node checks the two timeouts above (its default, 30 s, lets them overrun by that much). */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;
/** A socket with no traffic either way for this long is closed (a client that stopped reading). */
export const IDLE_SOCKET_TIMEOUT_MS = 60_000;
/**
 * Open connections are capped here even when the descriptor limit would allow more, for the
 * whole server: each of its workers takes its share. At the cap a newcomer replaces an idle or
 * slow connection (./connection-table.ts).
 */
export const MAX_CONNECTIONS = 10_000;
/**
 * Pages rendering at once (./admission.ts): until each has sent its shell, not until it has
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
 * Server-function calls one client may have running or waiting at once (past it, 429): half the
 * places, so that one client trickling its bodies cannot take every place (8 such calls held
 * sign-in, sign-out and the home page's calls for everyone, 30 s at a time).
 */
export const SERVER_FUNCTION_CALLS_PER_CLIENT = CONCURRENT_SERVER_FUNCTION_CALLS / 2;
/**
 * How long renders may keep one turn of the event loop before the rest wait for the next
 * (./admission.ts). Two turns, one to accept and one to read, must fit well inside the 100 ms
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
  /** Pages open at once, rendering or streaming (./admission.ts's `maxOpen`). */
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
