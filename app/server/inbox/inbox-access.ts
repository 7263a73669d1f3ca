/**
 * Who may read and clear the local inbox. Pure policy over what a request says about itself;
 * the glue is in ./inbox-access.server.ts and ../inbox-access.functions.ts. Why: the inbox holds
 * the full text and stack of every server failure, which the error pages never show, and behind
 * a proxy on this machine every visitor looks local
 * (docs/decisions/0306-inbox-sign-in-by-default.md).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { InboxAccess } from '#app/server/env.server';
import { isLoopbackAddress, isLoopbackHost } from '#app/server/security/loopback';

export const INBOX_SESSION_COOKIE = 'inbox_session';

/**
 * Why a request may read the inbox (it is open, it comes from this machine and the operator
 * said no proxy is in front, it holds a session), or that it must sign in first.
 */
export type InboxAccessDecision = 'open' | 'loopback' | 'session' | 'sign-in';

export interface InboxRequest {
  /** The TCP peer's address. */
  remoteAddress: string | undefined;
  /** The Host header. */
  host: string | null;
  /** Whether a proxy forwarded the request (Forwarded, X-Forwarded-For or X-Real-IP). */
  forwarded: boolean;
  /** Whether its session cookie names a live session. */
  signedIn: boolean;
}

export function inboxAccessDecision(
  access: InboxAccess,
  request: InboxRequest,
): InboxAccessDecision {
  if (access.kind === 'open') return 'open';
  if (request.signedIn) return 'session';
  // All three: a proxy on this machine makes every visitor a loopback peer (so a forwarded
  // request is not local), and a rebound DNS name reaches loopback with its own Host. nginx's
  // defaults send neither header nor Host, hence only when the operator says there is no proxy.
  if (
    access.trustLoopback &&
    isLoopbackAddress(request.remoteAddress) &&
    !request.forwarded &&
    isLoopbackHost(request.host)
  ) {
    return 'loopback';
  }
  return 'sign-in';
}

/** Whether a typed token is the inbox's, in constant time whatever the lengths. */
export function tokenMatches(given: string, token: string): boolean {
  // Hash first: timingSafeEqual needs equal lengths, and the length must not leak either.
  return timingSafeEqual(sha256(given), sha256(token));
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * The session cookie's attributes, for h3's setCookie and deleteCookie: the whole site, out of
 * scripts' reach, never sent with a request from another site, and Secure over https.
 */
export function sessionCookieOptions(secure: boolean) {
  return { path: '/', httpOnly: true, sameSite: 'strict', secure } as const;
}
