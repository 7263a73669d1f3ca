/**
 * Requests to Sentry's envelope endpoint over kept-alive connections: one agent per scheme,
 * shared by every request, so a busy tunnel does not pay a TCP (and TLS) handshake per envelope.
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

export interface Upstream {
  /** Starts a POST to `url`; the Host header is added here. */
  post(url: URL, headers: HeaderList): ClientRequest;
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
  agent: HttpAgent;
}

export function createUpstream(): Upstream {
  // Idle sockets are closed after a minute (sooner when the server's Keep-Alive hint says so;
  // Node only applies that hint when the agent has a timeout of its own).
  const options = { keepAlive: true, timeout: 60_000 };
  const http = new HttpAgent(options);
  const https = new HttpsAgent(options);
  // The allowed destinations are few and live as long as the process.
  const targets = new WeakMap<URL, Target>();
  const targetOf = (url: URL): Target => {
    let target = targets.get(url);
    if (!target) {
      const parts = requestTargetOf(url);
      target = {
        ...parts,
        send: parts.secure ? httpsRequest : request,
        agent: parts.secure ? https : http,
      };
      targets.set(url, target);
    }
    return target;
  };
  return {
    post(url, headers) {
      const target = targetOf(url);
      headers.push('host', target.hostHeader);
      return target.send({
        host: target.host,
        port: target.port,
        path: target.path,
        method: 'POST',
        agent: target.agent,
        headers,
      });
    },
    close() {
      http.destroy();
      https.destroy();
    },
  };
}
