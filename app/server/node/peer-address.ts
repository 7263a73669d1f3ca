/**
 * The TCP peer's address, as a request header the built server's entry sets on every request
 * it receives (overwriting whatever a client sent under that name).
 *
 * Why a header: during SSR, Start calls server functions through nitro's in-process fetch
 * (@tanstack/start-server-functions-ssr), which copies the page request's headers onto a
 * synthetic request whose socket names no peer. Only the headers reach the server function, so
 * the one fact that cannot be forged, who connected, must travel as a header that only the
 * entry writes.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

export const PEER_ADDRESS_HEADER = 'x-monitoring-peer-address';

/** Called by the entry for every request it receives. */
export function stampPeerAddress(req: IncomingMessage): void {
  req.headers[PEER_ADDRESS_HEADER] = req.socket.remoteAddress ?? '';
}

/** The address the entry stamped; undefined when the request did not come through it. */
export function peerAddressOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers[PEER_ADDRESS_HEADER];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
