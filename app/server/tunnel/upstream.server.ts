/**
 * Requests to Sentry's envelope endpoint over kept-alive connections, shared by every request,
 * so a busy tunnel does not pay a TCP (and TLS) handshake per envelope. The connections are
 * pooled and bounded: one per slow client made 900 sockets to Sentry from 900 slow bodies, and
 * the process ran out of descriptors. Two pools per scheme, each at most `POOL_SOCKETS`
 * connections to one Sentry host (requests past it wait their turn, within the tunnel's
 * timeout): one for envelopes that have arrived whole, the usual case, and one for envelopes
 * still streaming in, so that slow clients can hold the second at most (docs/decisions/0611).
 *
 * This runs once per envelope, so it is written for Node's cheapest request path
 * (docs/decisions/0102-tunnel-fast-path.md): the per-destination parts are worked out once,
 * the options object has the same few keys every time, and headers go as a flat
 * [name, value, …] list, which Node validates and writes straight out instead of storing each.
 */
import { type ClientRequest, Agent as HttpAgent, request } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** Header names and values, alternating: ['content-type', 'application/x-sentry-envelope', …]. */
export type HeaderList = string[];

/** Connections to one Sentry host in each pool, for the whole server (each worker its share). */
export const POOL_SOCKETS = 64;

/** Whether the envelope has arrived whole, or is still streaming in from its client. */
export type UpstreamPool = 'whole' | 'streaming';

export interface Upstream {
  /** Starts a POST to `url` on `pool`'s connections; the Host header is added here. */
  post(url: URL, headers: HeaderList, pool: UpstreamPool): ClientRequest;
  close(): void;
}

/** Where a request for an envelope URL goes, and the Host header it carries. */
export interface RequestTarget {
  secure: boolean;
  /** For the socket: an IPv6 address without its brackets. */
  host: string;
  port: number | undefined;
  path: string;
  /** As URL.host has it: brackets for IPv6, the port only when it is not the scheme's default. */
  hostHeader: string;
}

export function requestTargetOf(url: URL): RequestTarget {
  return {
    secure: url.protocol === 'https:',
    host: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    hostHeader: url.host,
  };
}

interface Target extends RequestTarget {
  send: typeof request;
  agents: Record<UpstreamPool, HttpAgent>;
}

/** `maxSockets`: each pool's connections per Sentry host (a worker's share of POOL_SOCKETS). */
export function createUpstream(maxSockets = POOL_SOCKETS): Upstream {
  // Idle sockets are closed after a minute (sooner when the server's Keep-Alive hint says so;
  // Node only applies that hint when the agent has a timeout of its own).
  const options = { keepAlive: true, timeout: 60_000, maxSockets };
  const http = { whole: new HttpAgent(options), streaming: new HttpAgent(options) };
  const https = { whole: new HttpsAgent(options), streaming: new HttpsAgent(options) };
  // The allowed destinations are few and live as long as the process.
  const targets = new WeakMap<URL, Target>();
  const targetOf = (url: URL): Target => {
    let target = targets.get(url);
    if (!target) {
      const parts = requestTargetOf(url);
      target = {
        ...parts,
        send: parts.secure ? httpsRequest : request,
        agents: parts.secure ? https : http,
      };
      targets.set(url, target);
    }
    return target;
  };
  return {
    post(url, headers, pool) {
      const target = targetOf(url);
      headers.push('host', target.hostHeader);
      return target.send({
        host: target.host,
        port: target.port,
        path: target.path,
        method: 'POST',
        agent: target.agents[pool],
        headers,
      });
    },
    close() {
      for (const agent of [http.whole, http.streaming, https.whole, https.streaming]) {
        agent.destroy();
      }
    },
  };
}
