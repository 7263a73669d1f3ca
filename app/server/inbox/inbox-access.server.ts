/** The inbox access policy (./inbox-access.ts) applied to the request being served. */
import { getEvent } from '@tanstack/react-start/server';
import { serverConfig } from '#app/server/env.server';
import { peerAddressOf } from '#app/server/node/peer-address';
import { type InboxAccessDecision, inboxAccessDecision, sessionFromCookies } from './inbox-access';

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

export function currentInboxAccess(): InboxAccessDecision {
  const { inboxAccess } = serverConfig();
  if (inboxAccess.kind === 'open') return 'allowed';
  const { req } = getEvent().node;
  return inboxAccessDecision(inboxAccess, {
    // Not req.socket: during SSR the server function runs on a synthetic request (peer-address.ts).
    remoteAddress: peerAddressOf(req.headers),
    host: req.headers.host ?? null,
    forwarded: FORWARDING_HEADERS.some((name) => req.headers[name] !== undefined),
    session: sessionFromCookies(req.headers.cookie),
  });
}
