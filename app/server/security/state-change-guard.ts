/**
 * Which state-changing requests are refused for where they come from: pure policy, used by the
 * server-function middleware (./state-change-guard-middleware.ts) for every POST to a server
 * function (the inbox's clear and sign-in forms among them).
 *
 * - `Host` must be one of ALLOWED_HOSTS (by default the host of PUBLIC_URL in production), or
 *   name this machine (localhost, 127.x, [::1]: where an operator opens the private inbox): with
 *   a rebound DNS name the attacker's page is "same-origin" with us, Host and Origin both
 *   name the attacker's domain, and only the Host list tells. A browser never sends a loopback
 *   Host for a page of another name, so loopback names stay safe to allow.
 * - `Origin`, when a browser sends one, must name the same host as `Host`, and
 *   `Sec-Fetch-Site` must not say cross-site: a form on another site cannot post here.
 * A request with neither (curl, a server) is not a browser's cross-site request.
 */

import { isLoopbackHost } from './loopback';

export interface StateChangeRequest {
  method: string;
  host: string | null;
  origin: string | null;
  fetchSite: string | null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function stateChangeRefusal(
  request: StateChangeRequest,
  allowedHosts: readonly string[] | 'any',
): string | undefined {
  if (SAFE_METHODS.has(request.method)) return undefined;
  const host = request.host?.toLowerCase() ?? '';
  if (
    allowedHosts !== 'any' &&
    !isLoopbackHost(host) &&
    !allowedHosts.some((allowed) => hostMatches(host, allowed))
  ) {
    return 'Host not allowed';
  }
  const { fetchSite, origin } = request;
  if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') {
    return 'Cross-site request refused';
  }
  if (origin === null) return undefined;
  try {
    if (new URL(origin).host.toLowerCase() === host) return undefined;
  } catch {
    // "null" (a sandboxed frame, a privacy-sensitive redirect) names no site: refused.
  }
  return 'Cross-origin request refused';
}

/** An allowed entry without a port matches that name on any port. */
function hostMatches(host: string, allowed: string): boolean {
  if (host === allowed) return true;
  return !/:\d+$/.test(allowed) && host.replace(/:\d+$/, '') === allowed;
}
