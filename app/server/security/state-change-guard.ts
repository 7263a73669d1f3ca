/**
 * The cross-site guard for every call that changes state: the Host/Origin rule, the global
 * server-function middleware that applies it, and the stricter rule for the inbox's forms; and
 * whether a request names or comes from this machine (loopback), which the Host rule and the
 * inbox's trust of loopback visitors read. No import of ./client-key.ts: this module is in the
 * client build's graph (the middleware), and that one's node:net must not be.
 */

import { createMiddleware } from '@tanstack/react-start';
import { getWebRequest } from '@tanstack/react-start/server';
import { serverConfig } from '#app/server/env.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';

/**
 * Which state-changing requests are refused for where they come from: pure policy, used by the
 * server-function middleware (`stateChangeGuard`, below) for every POST to a server
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

/**
 * Global server-function middleware: a POST from a Host or Origin that may not change state
 * here gets a 403 before the function runs (policy: `stateChangeRefusal`). The `.server()`
 * body, and with it the server-only imports, is stripped from the client bundle by Start.
 */
export const stateChangeGuard = createMiddleware().server(async ({ next, functionId }) => {
  const request = getWebRequest();
  if (request) {
    const refusal = stateChangeRefusal(
      {
        method: request.method,
        host: request.headers.get('host'),
        origin: request.headers.get('origin'),
        fetchSite: request.headers.get('sec-fetch-site'),
      },
      serverConfig().allowedHosts,
    );
    if (refusal) {
      warnLimited(
        'server-fn 403',
        `[server-fn] 403 ${refusal}: ${request.method} ${functionId} with Host ${JSON.stringify(request.headers.get('host'))}`,
      );
      throw new Response(refusal, {
        status: 403,
        headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      });
    }
  }
  return next();
});

/**
 * The inbox's forms that change something (clear, sign-in, sign-out), guarded against
 * cross-site requests: a rule of their own on top of the one for every state-changing call
 * (`stateChangeRefusal`).
 */
export type FormPostRequest = StateChangeRequest;

export interface FormPostRefusal {
  status: 403 | 405;
  reason: string;
}

/**
 * Why a form's request is refused, or undefined when it may go ahead. `action` completes
 * "Only POST …" ("clears the inbox").
 * Start 1.120's server-function handler also accepts GET whatever the declared method, and a
 * cross-site GET (an `<img>`, a link) carries no Origin, while a GET puts its input in the URL
 * (and so in access logs and history): so only POST. The rest is the rule for every
 * state-changing call (`stateChangeRefusal`); the Host list is the global middleware's to
 * check, so here any Host is judged only against the Origin it came with.
 */
export function formPostRefusal(
  request: FormPostRequest,
  action: string,
): FormPostRefusal | undefined {
  if (request.method !== 'POST') return { status: 405, reason: `Only POST ${action}` };
  const reason = stateChangeRefusal(request, 'any');
  return reason === undefined ? undefined : { status: 403, reason };
}

/** The same, for the request a server function is serving (none: refused as a GET). */
export function formPostRefusalOf(
  request: Request | undefined,
  action: string,
): FormPostRefusal | undefined {
  return formPostRefusal(
    {
      method: request?.method ?? 'GET',
      origin: request?.headers.get('origin') ?? null,
      host: request?.headers.get('host') ?? null,
      fetchSite: request?.headers.get('sec-fetch-site') ?? null,
    },
    action,
  );
}

/** The refusal as the answer a server function throws (a 405 names the method it takes). */
export function refusalResponse(refusal: FormPostRefusal): Response {
  const headers: Record<string, string> = refusal.status === 405 ? { Allow: 'POST' } : {};
  return new Response(refusal.reason, { status: refusal.status, headers });
}

/** Whether a peer address is this machine (127.x.x.x, ::1, or IPv4-mapped 127.x). Pure. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** Whether a Host header names this machine: localhost, 127.x.x.x or [::1], with any port. Pure. */
export function isLoopbackHost(host: string | null): boolean {
  if (!host) return false;
  const name = host.toLowerCase().replace(/:\d+$/, '');
  return name === 'localhost' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}
