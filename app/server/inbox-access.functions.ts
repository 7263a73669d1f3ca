/**
 * Signing in to the local inbox with MONITORING_INBOX_TOKEN (production). A plain HTML form
 * posts here, so it works before hydration; the answer is a redirect, thrown as a Response
 * (see clearInbox in ./inbox.functions.ts for why thrown).
 */
import { createServerFn } from '@tanstack/react-start';
import { getEvent } from '@tanstack/react-start/server';
import * as v from 'valibot';
import { serverConfig } from './env.server';
import { type InboxAccessDecision, sessionCookie, tokenMatches } from './inbox/inbox-access';
import { currentInboxAccess } from './inbox/inbox-access.server';

/** What the sign-in page shows: the form, why there is none, or that it is not needed. */
export const getInboxAccess = createServerFn({ method: 'GET' }).handler(
  (): InboxAccessDecision => currentInboxAccess(),
);

export const SignInInput = v.object({ token: v.pipe(v.string(), v.maxLength(1000)) });

export const signInToInbox = createServerFn({ method: 'POST' })
  .validator((input: unknown) =>
    v.parse(SignInInput, input instanceof FormData ? Object.fromEntries(input) : input),
  )
  .handler(async ({ data }): Promise<never> => {
    const { inboxAccess, publicUrl } = serverConfig();
    if (inboxAccess.kind !== 'token') {
      throw new Response(null, { status: 303, headers: { Location: '/errors' } });
    }
    if (!tokenMatches(data.token, inboxAccess.token)) {
      const peer = getEvent().node.req.socket.remoteAddress ?? 'unknown';
      console.warn(`[inbox] sign-in refused: wrong token from ${peer}`);
      throw new Response(null, {
        status: 303,
        headers: { Location: '/errors/sign-in?failed=1' },
      });
    }
    throw new Response(null, {
      status: 303,
      headers: {
        Location: '/errors',
        'Set-Cookie': sessionCookie(inboxAccess.token, publicUrl?.protocol === 'https:'),
      },
    });
  });
