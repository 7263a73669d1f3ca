/**
 * Who a client is: the address behind any trusted proxies (TRUSTED_PROXIES), its key for every
 * per-client limit, and the addresses the built server's entry stamps on each request (a Start
 * 1.120 workaround, app/start-1.120/PATCHES.md). Decision: docs/decisions/1020-trusted-proxies.md.
 */

import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isIP, isIPv4, isIPv6 } from 'node:net';
import parseForwarded from 'forwarded-parse';
import proxyaddr from 'proxy-addr';
import { processShared } from '#app/start-1.120/process-shared.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'stamped-clients': WeakMap<IncomingMessage, string | undefined>;
  }
}

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
 * The proxies whose `X-Forwarded-For` is believed: TRUSTED_PROXIES as written, and proxy-addr's
 * compiled test of an address (`hop` 0 is the TCP peer, 1 the address it forwarded for, ...).
 */
export interface TrustedProxies {
  entries: readonly string[];
  trusts(address: string, hop: number): boolean;
}

export const NO_TRUSTED_PROXIES: TrustedProxies = { entries: [], trusts: () => false };

/** The names proxy-addr expands to its ranges (loopback: 127.0.0.1/8 and ::1/128, ...). */
export const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'] as const;

/**
 * TRUSTED_PROXIES' entries (addresses, CIDRs, a netmask after the slash, the names above)
 * compiled by proxy-addr, as Express's `trust proxy` takes them. Throws proxy-addr's TypeError
 * for an entry it cannot read; the env schema names that entry.
 */
export function trustedProxiesOf(entries: readonly string[]): TrustedProxies {
  if (entries.length === 0) return NO_TRUSTED_PROXIES;
  return { entries, trusts: proxyaddr.compile([...entries]) };
}

/**
 * The client's address. The TCP peer, unless the peer is a trusted proxy: then proxy-addr's
 * answer, the right-most address of the forwarding chain (forwardedChainOf) that is not itself a
 * trusted proxy (walking from the peer leftwards; everything left of it is whatever the client
 * wrote, and ignored). `X-Real-IP` is never read. From an
 * untrusted peer no header is read, so a visitor cannot name itself. An entry that is not an IP
 * address (a proxy passed a visitor's text on unchecked) names no one: the hop that reported it is
 * the client, so that made-up names cannot mint clients by the thousand. Pure.
 */
export function clientAddressOf(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string | undefined {
  if (!peer || !trusted.trusts(peer, 0)) return peer;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '');
  // proxy-addr reads a request: the two fields it looks at.
  const request = { socket: { remoteAddress: peer }, headers: { 'x-forwarded-for': header } };
  const chain = proxyaddr.all(request as unknown as IncomingMessage, trusted.trusts);
  const client = chain[chain.length - 1];
  if (client !== undefined && isIP(client) !== 0) return client;
  return chain[chain.length - 2] ?? peer;
}

/**
 * The forwarding chain a request carries, as an `X-Forwarded-For` list for clientAddressOf:
 * `X-Forwarded-For` when the request has one, else the `for=` values of RFC 7239's `Forwarded`
 * (parsed by forwarded-parse; brackets, quotes and ports dropped; `unknown` and obfuscated
 * identifiers kept, so that they name no one). Not both: the proxies that write only `Forwarded`
 * are rare, and nginx, Caddy and the load balancers of the clouds write `X-Forwarded-For`, so a
 * visitor's own `Forwarded` never outranks the header its proxy wrote (decision 1021). A
 * `Forwarded` that does not parse names no one: the proxy that passed it on is the client. Pure.
 */
export function forwardedChainOf(headers: IncomingHttpHeaders): string | string[] | undefined {
  const forwardedFor = headers['x-forwarded-for'];
  if (forwardedFor !== undefined) return forwardedFor;
  const forwarded = headers.forwarded;
  if (forwarded === undefined) return undefined;
  try {
    return parseForwarded(forwarded)
      .map((element) => nodeOf(element.for ?? 'unknown'))
      .join(',');
  } catch {
    return 'unknown';
  }
}

/** A `Forwarded` node (`192.0.2.43:47011`, `[2001:db8::1]:4711`) without its port. */
function nodeOf(node: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d+)?$/.exec(node);
  if (bracketed) return bracketed[1] as string;
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(node);
  return withPort ? (withPort[1] as string) : node;
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
/** The client's address (clientAddressOf), stamped beside the peer's for the same reason. */
export const CLIENT_ADDRESS_HEADER = 'x-monitoring-client-address';

/**
 * Called by the entry for every request it receives, before anything reads who sent it: both
 * headers (overwriting whatever a client sent under those names), and the client kept for
 * requestClientAddress, which the tunnel and admission read off the request itself.
 */
export function stampPeerAddress(req: IncomingMessage, trusted: TrustedProxies): void {
  const peer = req.socket.remoteAddress;
  const client = clientAddressOf(peer, forwardedChainOf(req.headers), trusted);
  req.headers[PEER_ADDRESS_HEADER] = peer ?? '';
  req.headers[CLIENT_ADDRESS_HEADER] = client ?? '';
  stampedClients().set(req, client);
}

/** The address the entry stamped; undefined when the request did not come through it. */
export function peerAddressOf(headers: IncomingHttpHeaders): string | undefined {
  return stampedHeader(headers, PEER_ADDRESS_HEADER);
}

/** The client the entry stamped (for server functions, whose request is SSR's synthetic one). */
export function clientAddressStampedIn(headers: IncomingHttpHeaders): string | undefined {
  return stampedHeader(headers, CLIENT_ADDRESS_HEADER);
}

function stampedHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Who sent a request the Node server received: the client the entry resolved, or the TCP peer
 * when no entry saw it (a bare node:http server in tests and benchmarks, `vinxi dev`'s tunnel).
 * Not the header: without the entry nothing overwrites a client's own.
 */
export function requestClientAddress(req: IncomingMessage): string | undefined {
  const clients = stampedClients();
  return clients.has(req) ? clients.get(req) : req.socket.remoteAddress;
}

/** requestClientAddress as every per-client limit counts clients (clientKeyOf). */
export function requestClientKey(req: IncomingMessage): string {
  return clientKeyOf(requestClientAddress(req));
}

function stampedClients(): WeakMap<IncomingMessage, string | undefined> {
  return processShared('stamped-clients', () => new WeakMap());
}
