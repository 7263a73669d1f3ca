/**
 * Requests to Sentry's envelope endpoint over kept-alive connections: one agent per scheme,
 * shared by every request, so a busy tunnel does not pay a TCP (and TLS) handshake per envelope.
 */
import {
  type ClientRequest,
  Agent as HttpAgent,
  type OutgoingHttpHeaders,
  type RequestOptions,
  request,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface Upstream {
  post(url: URL, headers: OutgoingHttpHeaders): ClientRequest;
  close(): void;
}

export function createUpstream(): Upstream {
  // Idle sockets are closed after a minute (sooner when the server's Keep-Alive hint says so;
  // Node only applies that hint when the agent has a timeout of its own).
  const options = { keepAlive: true, timeout: 60_000, scheduling: 'lifo' as const };
  const http = new HttpAgent(options);
  const https = new HttpsAgent(options);
  // The allowed destinations are few and live as long as the process: their request options
  // are worked out once, not per envelope (Node's URL-to-options step showed in profiles).
  const targets = new WeakMap<URL, RequestOptions>();
  const targetOf = (url: URL): RequestOptions => {
    let target = targets.get(url);
    if (!target) {
      const secure = url.protocol === 'https:';
      target = {
        protocol: url.protocol,
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        agent: secure ? https : http,
      };
      targets.set(url, target);
    }
    return target;
  };
  return {
    post(url, headers) {
      const target = targetOf(url);
      const send = target.protocol === 'https:' ? httpsRequest : request;
      return send({ ...target, headers });
    },
    close() {
      http.destroy();
      https.destroy();
    },
  };
}
