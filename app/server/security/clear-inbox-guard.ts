/**
 * The inbox's one state change, clearing it, guarded against cross-site requests: a rule of
 * its own on top of the one for every state-changing call (./state-change-guard.ts).
 */
import { type StateChangeRequest, stateChangeRefusal } from './state-change-guard';

export type ClearRequest = StateChangeRequest;

/**
 * Why a request to clear the inbox is refused, or undefined when it may go ahead.
 * Start 1.120's server-function handler also accepts GET whatever the declared method, and a
 * cross-site GET (an `<img>`, a link) carries no Origin: so only POST. The rest is the rule for
 * every state-changing call (./state-change-guard.ts); the Host list is the global
 * middleware's to check, so here any Host is judged only against the Origin it came with.
 */
export function clearRefusal(
  request: ClearRequest,
): { status: 403 | 405; reason: string } | undefined {
  if (request.method !== 'POST') return { status: 405, reason: 'Only POST clears the inbox' };
  const reason = stateChangeRefusal(request, 'any');
  return reason === undefined ? undefined : { status: 403, reason };
}
