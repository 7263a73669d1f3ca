/**
 * The inbox's forms that change something (clear, sign-in, sign-out), guarded against
 * cross-site requests: a rule of their own on top of the one for every state-changing call
 * (./state-change-guard.ts).
 */
import { type StateChangeRequest, stateChangeRefusal } from './state-change-guard';

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
 * state-changing call (./state-change-guard.ts); the Host list is the global middleware's to
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
