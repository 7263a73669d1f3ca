/**
 * Who a client is: its key for every per-client limit, and the peer address the built server's
 * entry stamps on each request (a Start 1.120 workaround, app/start-1.120/PATCHES.md).
 */

import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * Who "one client" is, for every per-client limit (connections, the tunnel's receive share,
 * sign-in attempts): an IPv4 address, or an IPv6 /64. One IPv6 subscriber is routinely given a
 * whole /64, so counting IPv6 addresses one by one would give one attacker 2^64 clients.
 * Pure.
 */
export function clientKeyOf(address: string | undefined): string {
  if (!address) return 'unknown';
  if (address.startsWith('::ffff:') && isIPv4(address.slice(7))) return address.slice(7);
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  const groups = expandIPv6(address.split('%')[0] as string);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, lower-case, without leading zeros. */
function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('::');
  const part = (text: string) => (text === '' ? [] : text.split(':'));
  let left = part(head);
  let right = tail === undefined ? [] : part(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4 handled above; 64:ff9b::1.2.3.4 here) is two groups.
  const toGroups = (groups: string[]) =>
    groups.flatMap((group) => {
      if (!group.includes('.')) return [group];
      const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
      return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    });
  left = toGroups(left);
  right = toGroups(right);
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16).toString(16));
}

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
