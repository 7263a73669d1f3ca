/**
 * Access to the local inbox, one flow: the policy (who may read and clear it), the limit on
 * sign-in attempts, then the glue that reads a request. The sessions a sign-in opens are kept
 * by ./inbox-sessions.server.ts.
 *
 * The policy is pure, over what a request says about itself; the glue is below and in
 * ./inbox.functions.ts. Why: the inbox holds the full text and stack of every server failure,
 * which the error pages never show, and behind a proxy on this machine every visitor looks
 * local (docs/decisions/0306-inbox-sign-in-by-default.md).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { getCookie, getEvent } from '@tanstack/react-start/server';
import { type InboxAccess, serverConfig } from '#app/server/env.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import {
  clientAddressStampedIn,
  clientKeyOf,
  peerAddressOf,
  type TrustedProxies,
} from '#app/server/security/client-key';
import { isLoopbackAddress, isLoopbackHost } from '#app/server/security/state-change-guard';
import { processShared } from '#app/start-1.120/process-shared.server';
import type { InboxSessions } from './inbox-sessions.server';
import { localInbox } from './store/local-inbox.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'inbox-sign-in-limiter': SignInLimiter;
  }
}

/** The cookie that carries a signed-in visitor's session id. */
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
  /** Whether a proxy forwarded the request (isForwarded). */
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

/**
 * Whether a proxy forwarded the request: it carries Forwarded, X-Forwarded-For or X-Real-IP, or
 * its peer is a trusted proxy (TRUSTED_PROXIES). The second because nginx's bare default sends
 * no forwarding header at all: a peer the operator named a proxy is never "this machine", even
 * when it is loopback, whatever client it forwarded for (a loopback client behind a proxy is the
 * proxy's machine, and a proxy that passes a visitor's X-Forwarded-For on would let anyone say
 * 127.0.0.1). Pure.
 */
export function isForwarded(
  headers: Record<string, string | string[] | undefined>,
  peer: string | undefined,
  trusted: TrustedProxies,
): boolean {
  if (FORWARDING_HEADERS.some((name) => headers[name] !== undefined)) return true;
  return peer !== undefined && trusted.trusts(peer, 0);
}

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

// The access policy (above) applied to the request being served, with the process's one
// session store and sign-in limiter (kept through processShared, decision 0940).

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

/**
 * Who sent the request being served, behind any trusted proxy, as every per-client limit counts
 * clients.
 */
export function currentClient(): string {
  // Not req.socket: during SSR the server function runs on a synthetic request (../security/client-key.ts).
  return clientKeyOf(clientAddressStampedIn(getEvent().node.req.headers));
}

/** The session id in the request's cookie, if any. */
export function currentSessionId(): string | undefined {
  return getCookie(INBOX_SESSION_COOKIE);
}

export function currentInboxAccess(): InboxAccessDecision {
  if (serverConfig().inboxAccess.kind === 'open') return 'open';
  return inboxAccessOfRequest(getEvent().node.req.headers, currentSessionId());
}

/**
 * The decision for a request read off Node itself (the read API's front door, which answers
 * before h3 has an event): its headers as the built server's entry stamped them, and the id in
 * its session cookie.
 */
export function inboxAccessOfRequest(
  headers: IncomingHttpHeaders,
  session: string | undefined,
): InboxAccessDecision {
  const { inboxAccess, trustedProxies } = serverConfig();
  if (inboxAccess.kind === 'open') return 'open';
  const peer = peerAddressOf(headers);
  return inboxAccessDecision(inboxAccess, {
    remoteAddress: peer,
    host: headers.host ?? null,
    forwarded: isForwarded(headers, peer, trustedProxies),
    signedIn: session !== undefined && isLiveSession(session),
  });
}

/** One fixed kind for every failed sign-in line: at most 20 a minute whoever guesses. */
const FAILED_SIGN_IN = 'sign-in failed';

export type TokenAttempt =
  | { outcome: 'accepted' }
  | { outcome: 'wrong' }
  | { outcome: 'locked-out'; retryAfterSeconds: number };

/**
 * A token given to open the inbox, judged under the sign-in limit: the sign-in form's and the
 * read API's bearer token alike, so that neither is a way around the other's count. A locked-out
 * client's token is not even compared; a wrong one is counted and logged (never its value: it
 * may be the token with a typo); the right one starts the client's count over.
 */
export function attemptInboxToken(client: string, given: string, token: string): TokenAttempt {
  const limiter = signInLimiter();
  const gate = limiter.check(client);
  if (!gate.allowed) {
    warnLimited(FAILED_SIGN_IN, `[inbox] sign-in refused: ${client} is locked out`);
    return { outcome: 'locked-out', retryAfterSeconds: gate.retryAfterSeconds };
  }
  if (!tokenMatches(given, token)) {
    const { failures, lockedOut } = limiter.failed(client);
    const span = `${SIGN_IN_WINDOW_MS / 60_000} min`;
    const count = lockedOut
      ? `${failures} in ${span}: locked out for ${SIGN_IN_LOCKOUT_MS / 60_000} min`
      : `${failures} of ${SIGN_IN_MAX_FAILURES} in ${span}`;
    warnLimited(FAILED_SIGN_IN, `[inbox] sign-in refused: wrong token from ${client} (${count})`);
    return { outcome: 'wrong' };
  }
  limiter.succeeded(client);
  return { outcome: 'accepted' };
}

/** A store that cannot be used signs no one in: /errors could show nothing anyway. */
function isLiveSession(session: string): boolean {
  try {
    return inboxSessions()?.touch(session) ?? false;
  } catch {
    return false;
  }
}

// Wrong sign-in tokens, counted per client (../security/client-key.ts): a few in a while lock that client
// out for a short time, the right token included, so guessing goes at a few tries an hour
// instead of hundreds a second. Values and why: docs/decisions/0306-inbox-sign-in-by-default.md.
//
// Pure state with the clock passed in, so windows and lockouts are tested without waiting. The
// process's one limiter is `signInLimiter` (above).

/** Wrong tokens one client may send within the window... */
export const SIGN_IN_MAX_FAILURES = 5;
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/** ...before it is locked out this long. */
export const SIGN_IN_LOCKOUT_MS = 5 * 60 * 1000;
/** Clients tracked at once: about 1 MB at most. */
export const SIGN_IN_MAX_CLIENTS = 10_000;

export interface SignInLimiterOptions {
  maxFailures: number;
  windowMs: number;
  lockoutMs: number;
  maxClients: number;
  now?: () => number;
}

export type SignInGate = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface SignInLimiter {
  /** Whether `client` may try a token now. */
  check(client: string): SignInGate;
  /** A wrong token from `client`: how many in this window, and whether that locked it out. */
  failed(client: string): { failures: number; lockedOut: boolean };
  /** The right token: the client's count starts over. */
  succeeded(client: string): void;
  /** Clients tracked. */
  size(): number;
}

interface ClientRecord {
  windowStartedAt: number;
  failures: number;
  /** 0 while not locked out. */
  lockedUntil: number;
}

export function createSignInLimiter(options: SignInLimiterOptions): SignInLimiter {
  const { maxFailures, windowMs, lockoutMs, maxClients } = options;
  const now = options.now ?? Date.now;
  // In order of each record's window start (a new window is a new entry): the oldest first.
  const records = new Map<string, ClientRecord>();

  const stale = (record: ClientRecord, at: number) =>
    record.lockedUntil > 0 ? at >= record.lockedUntil : at - record.windowStartedAt >= windowMs;

  /** The client's record, if it still counts. */
  const current = (client: string, at: number) => {
    const record = records.get(client);
    if (record && stale(record, at)) {
      records.delete(client);
      return undefined;
    }
    return record;
  };

  /** Room for one more client: stale records go first, then the oldest. */
  const makeRoom = (at: number) => {
    for (const [client, record] of records) {
      if (records.size < maxClients) return;
      if (stale(record, at)) records.delete(client);
    }
    while (records.size >= maxClients) {
      records.delete(records.keys().next().value as string);
    }
  };

  return {
    check(client) {
      const at = now();
      const record = current(client, at);
      if (!record || record.lockedUntil === 0) return { allowed: true };
      return { allowed: false, retryAfterSeconds: Math.ceil((record.lockedUntil - at) / 1000) };
    },
    failed(client) {
      const at = now();
      let record = current(client, at);
      if (!record) {
        makeRoom(at);
        record = { windowStartedAt: at, failures: 0, lockedUntil: 0 };
        records.set(client, record);
      }
      record.failures++;
      const lockedOut = record.failures >= maxFailures;
      if (lockedOut && record.lockedUntil === 0) record.lockedUntil = at + lockoutMs;
      return { failures: record.failures, lockedOut };
    },
    succeeded(client) {
      records.delete(client);
    },
    size: () => records.size,
  };
}
