/**
 * The inbox access policy (./inbox-access.ts) applied to the request being served, with the
 * process's one session store and sign-in limiter (kept through processShared, decision 0940).
 */
import { getCookie, getEvent } from '@tanstack/react-start/server';
import { serverConfig } from '#app/server/env.server';
import { peerAddressOf } from '#app/server/node/peer-address';
import { processShared } from '#app/server/process-shared.server';
import { clientKeyOf } from '#app/server/security/client-key';
import {
  createSignInLimiter,
  SIGN_IN_LOCKOUT_MS,
  SIGN_IN_MAX_CLIENTS,
  SIGN_IN_MAX_FAILURES,
  SIGN_IN_WINDOW_MS,
  type SignInLimiter,
} from '#app/server/security/sign-in-limiter';
import {
  INBOX_SESSION_COOKIE,
  type InboxAccessDecision,
  inboxAccessDecision,
} from './inbox-access';
import type { InboxSessions } from './inbox-sessions';
import { localInbox } from './store/local-inbox.server';

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/**
 * The signed-in sessions, in the inbox's database (every worker shares them); undefined with
 * Sentry, where there is no inbox to sign in to.
 */
export function inboxSessions(): InboxSessions | undefined {
  return serverConfig().monitoring.kind === 'local-inbox' ? localInbox().sessions() : undefined;
}

/**
 * Wrong tokens counted per client in this process: with several workers a client reaches each
 * one's count, so it may try up to WEB_CONCURRENCY times as many (docs/production.md).
 */
export function signInLimiter(): SignInLimiter {
  return processShared('inbox-sign-in-limiter', () =>
    createSignInLimiter({
      maxFailures: SIGN_IN_MAX_FAILURES,
      windowMs: SIGN_IN_WINDOW_MS,
      lockoutMs: SIGN_IN_LOCKOUT_MS,
      maxClients: SIGN_IN_MAX_CLIENTS,
    }),
  );
}

/** Who sent the request being served, as every per-client limit counts clients. */
export function currentClient(): string {
  // Not req.socket: during SSR the server function runs on a synthetic request (peer-address.ts).
  return clientKeyOf(peerAddressOf(getEvent().node.req.headers));
}

/** The session id in the request's cookie, if any. */
export function currentSessionId(): string | undefined {
  return getCookie(INBOX_SESSION_COOKIE);
}

export function currentInboxAccess(): InboxAccessDecision {
  const { inboxAccess } = serverConfig();
  if (inboxAccess.kind === 'open') return 'open';
  const { headers } = getEvent().node.req;
  const session = currentSessionId();
  return inboxAccessDecision(inboxAccess, {
    remoteAddress: peerAddressOf(headers),
    host: headers.host ?? null,
    forwarded: FORWARDING_HEADERS.some((name) => headers[name] !== undefined),
    signedIn: session !== undefined && isLiveSession(session),
  });
}

/** A store that cannot be used signs no one in: /errors could show nothing anyway. */
function isLiveSession(session: string): boolean {
  try {
    return inboxSessions()?.touch(session) ?? false;
  } catch {
    return false;
  }
}
