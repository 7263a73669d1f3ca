/**
 * Requests to Sentry's envelope endpoint over kept-alive connections: one agent per scheme,
 * shared by every request, so a busy tunnel does not pay a TCP (and TLS) handshake per envelope.
 */
import {
  type ClientRequest,
  Agent as HttpAgent,
  type OutgoingHttpHeaders,
  request,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface Upstream {
  post(url: URL, headers: OutgoingHttpHeaders): ClientRequest;
  close(): void;
}

export function createUpstream(): Upstream {
  // Idle sockets are closed after a minute (sooner when the server's Keep-Alive hint says so).
  const options = { keepAlive: true, timeout: 60_000, scheduling: 'lifo' as const };
  const http = new HttpAgent(options);
  const https = new HttpsAgent(options);
  return {
    post(url, headers) {
      const secure = url.protocol === 'https:';
      const send = secure ? httpsRequest : request;
      return send(url, { method: 'POST', headers, agent: secure ? https : http });
    },
    close() {
      http.destroy();
      https.destroy();
    },
  };
}
