/**
 * Who may read and clear the local inbox. Pure policy over what a request says about itself;
 * the server function glue is in app/server/inbox.functions.ts. Why: the inbox holds the full
 * text and stack of every server failure, which the error pages never show
 * (docs/decisions/0305-private-inbox.md).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { InboxAccess } from '#app/server/env.server';
import { isLoopbackAddress, isLoopbackHost } from '#app/server/security/loopback';

export const INBOX_SESSION_COOKIE = 'inbox_session';
/** A week: long enough for a debugging session, short enough that a lost laptop expires. */
export const INBOX_SESSION_MAX_AGE_SECONDS = 7 * 24 * 60 * 60;

export type InboxAccessDecision = 'allowed' | 'sign-in' | 'local-only';

export interface InboxRequest {
  /** The TCP peer's address. */
  remoteAddress: string | undefined;
  /** The Host header. */
  host: string | null;
  /** Whether a proxy forwarded the request (Forwarded, X-Forwarded-For or X-Real-IP). */
  forwarded: boolean;
  /** The inbox session cookie's value, when sent. */
  session: string | undefined;
}

export function inboxAccessDecision(
  access: InboxAccess,
  request: InboxRequest,
): InboxAccessDecision {
  switch (access.kind) {
    case 'open':
      return 'allowed';
    case 'loopback':
      // All three: a proxy on this machine makes every visitor a loopback peer (so a forwarded
      // request is not local), and a rebound DNS name reaches loopback with its own Host.
      return isLoopbackAddress(request.remoteAddress) &&
        !request.forwarded &&
        isLoopbackHost(request.host)
        ? 'allowed'
        : 'local-only';
    case 'token':
      return request.session !== undefined && sameSecret(request.session, sessionFor(access.token))
        ? 'allowed'
        : 'sign-in';
  }
}

/** The cookie value a signed-in visitor holds: derived from the token, never the token itself. */
export function sessionFor(token: string): string {
  return createHmac('sha256', token).update('start-monitoring inbox session v1').digest('hex');
}

/** Whether a typed token is the configured one, in constant time whatever the lengths. */
export function tokenMatches(given: string, token: string): boolean {
  return sameSecret(given, token);
}

function sameSecret(a: string, b: string): boolean {
  // Hash first: timingSafeEqual needs equal lengths, and the length must not leak either.
  return timingSafeEqual(sha256(a), sha256(b));
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** The inbox session cookie's value in a Cookie header. */
export function sessionFromCookies(cookieHeader: string | null | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === INBOX_SESSION_COOKIE) return rest.join('=');
  }
  return undefined;
}

export function sessionCookie(token: string, secure: boolean): string {
  return [
    `${INBOX_SESSION_COOKIE}=${sessionFor(token)}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${INBOX_SESSION_MAX_AGE_SECONDS}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}
