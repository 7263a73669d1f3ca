/**
 * Signing in to and out of the local inbox (decision 0306). Plain HTML forms post here, so
 * they work before hydration and without JavaScript; the answers are redirects, thrown as a
 * Response (see clearInbox in ./inbox.functions.ts for why thrown).
 */
import { createServerFn } from '@tanstack/react-start';
import { deleteCookie, getWebRequest, setCookie } from '@tanstack/react-start/server';
import * as v from 'valibot';
import { serverConfig } from './env.server';
import {
  INBOX_SESSION_COOKIE,
  type InboxAccessDecision,
  sessionCookieOptions,
  tokenMatches,
} from './inbox/inbox-access';
import {
  currentClient,
  currentInboxAccess,
  currentSessionId,
  inboxSessions,
  signInLimiter,
} from './inbox/inbox-access.server';
import { SESSION_MAX_AGE_MS } from './inbox/inbox-sessions';
import { warnLimited } from './logging/rate-limited-log';
import {
  SIGN_IN_LOCKOUT_MS,
  SIGN_IN_MAX_FAILURES,
  SIGN_IN_WINDOW_MS,
} from './security/sign-in-limiter';
import { formPostRefusalOf, refusalResponse } from './security/state-change-guard';

/** One fixed kind for every failed sign-in line: at most 20 a minute whoever guesses. */
const FAILED_SIGN_IN = 'sign-in failed';

/** What the sign-in page shows: the form, or that the inbox is already open to this request. */
export const getInboxAccess = createServerFn({ method: 'GET' }).handler(
  (): InboxAccessDecision => currentInboxAccess(),
);

export const SignInInput = v.object({ token: v.pipe(v.string(), v.maxLength(1000)) });

export const signInToInbox = createServerFn({ method: 'POST' })
  .validator((input: unknown) =>
    v.parse(SignInInput, input instanceof FormData ? Object.fromEntries(input) : input),
  )
  .handler(async ({ data }): Promise<never> => {
    // Before the token is even looked at: a GET would carry it in the URL, into access logs.
    const refusal = formPostRefusalOf(getWebRequest(), 'signs in');
    if (refusal) throw refusalResponse(refusal);
    const { inboxAccess, publicUrl } = serverConfig();
    if (inboxAccess.kind !== 'token') throw seeOther('/errors');

    const client = currentClient();
    const limiter = signInLimiter();
    const gate = limiter.check(client);
    if (!gate.allowed) {
      warnLimited(FAILED_SIGN_IN, `[inbox] sign-in refused: ${client} is locked out`);
      throw new Response(
        `Too many wrong tokens from your address: try again in ${minutes(gate.retryAfterSeconds)}.`,
        {
          status: 429,
          headers: {
            'Retry-After': String(gate.retryAfterSeconds),
            'Content-Type': 'text/plain; charset=utf-8',
          },
        },
      );
    }
    if (!tokenMatches(data.token, inboxAccess.token)) {
      const { failures, lockedOut } = limiter.failed(client);
      // Never the value typed: it may be the token with a typo.
      const span = `${SIGN_IN_WINDOW_MS / 60_000} min`;
      const count = lockedOut
        ? `${failures} in ${span}: locked out for ${SIGN_IN_LOCKOUT_MS / 60_000} min`
        : `${failures} of ${SIGN_IN_MAX_FAILURES} in ${span}`;
      warnLimited(FAILED_SIGN_IN, `[inbox] sign-in refused: wrong token from ${client} (${count})`);
      throw seeOther('/errors/sign-in?failed=1');
    }
    limiter.succeeded(client);
    const sessions = inboxSessions();
    // No inbox (Sentry mode) or no usable store: /errors has nothing to show either.
    if (!sessions) throw seeOther('/errors');
    setCookie(INBOX_SESSION_COOKIE, sessions.create(), {
      ...sessionCookieOptions(publicUrl?.protocol === 'https:'),
      // The browser keeps it as long as the server would.
      maxAge: SESSION_MAX_AGE_MS / 1000,
    });
    throw seeOther('/errors');
  });

/** Ends this browser's session, on the server and in its cookie. */
export const signOutOfInbox = createServerFn({ method: 'POST' }).handler(
  async (): Promise<never> => {
    const refusal = formPostRefusalOf(getWebRequest(), 'signs out');
    if (refusal) throw refusalResponse(refusal);
    const session = currentSessionId();
    if (session !== undefined) inboxSessions()?.end(session);
    const secure = serverConfig().publicUrl?.protocol === 'https:';
    deleteCookie(INBOX_SESSION_COOKIE, sessionCookieOptions(secure));
    throw seeOther('/errors/sign-in');
  },
);

/** A Set-Cookie written with h3's setCookie goes out with it (h3's sendWebResponse appends). */
function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location } });
}

function minutes(seconds: number): string {
  const count = Math.ceil(seconds / 60);
  return count === 1 ? 'a minute' : `${count} minutes`;
}
