/**
 * Server functions behind the /errors pages (local inbox mode only). With SENTRY_DSN set
 * each throws notFound(), so the pages answer 404. Inputs are validated with valibot.
 */
import { notFound, redirect } from '@tanstack/react-router';
import { createServerFn } from '@tanstack/react-start';
import { getWebRequest } from '@tanstack/react-start/server';
import * as v from 'valibot';
import { serverConfig } from './env.server';
import { type LocalInbox, localInbox } from './inbox/inbox.server';
import { currentInboxAccess } from './inbox/inbox-access.server';
import { type EventDetail, eventDetailOf, type UnshownEvent } from './inbox/inbox-event';
import { clearRefusal, findEventEntry, type InboxPage, inboxPage } from './inbox/inbox-view';

/**
 * The inbox, for a request that may read it: a 404 with Sentry (there is no inbox), and a
 * redirect to the sign-in page for a request the inbox is private to (inbox-access.ts).
 */
function inboxOrNotFound(): LocalInbox {
  if (serverConfig().monitoring.kind !== 'local-inbox') throw notFound();
  if (currentInboxAccess() !== 'allowed') throw redirect({ to: '/errors/sign-in' });
  return localInbox();
}

export const InboxPageInput = v.object({
  page: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000)),
});

export const listInboxEvents = createServerFn({ method: 'GET' })
  .validator(InboxPageInput)
  .handler(async ({ data }): Promise<InboxPage & { inboxDir: string }> => {
    const inbox = inboxOrNotFound();
    return { ...inboxPage(await inbox.list(), data.page), inboxDir: inbox.dir };
  });

// Any text up to a sane length: an id that names no event is a 404, not a failure.
export const InboxEventInput = v.object({
  eventId: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
});

export const getInboxEvent = createServerFn({ method: 'GET' })
  .validator(InboxEventInput)
  .handler(async ({ data }): Promise<EventDetail | UnshownEvent> => {
    const inbox = inboxOrNotFound();
    const entry = findEventEntry(await inbox.list(), data.eventId);
    const bytes = entry ? await inbox.read(entry.id) : undefined;
    if (!bytes || !entry) throw notFound();
    try {
      const detail = eventDetailOf(bytes, entry.id);
      if (detail) return detail;
    } catch (error) {
      // Reported to the log, not to the inbox: a failure stored there would be one more
      // entry each time the page is viewed.
      console.warn(`[inbox] entry ${entry.id} could not be shown: ${(error as Error).message}`);
      return { eventId: data.eventId, unshown: true };
    }
    throw notFound();
  });

/** The confirmation the clear form sends: without it nothing is deleted. */
export const ClearInboxInput = v.object({ confirm: v.literal('clear') });

/**
 * Posted by a plain HTML form (works before hydration and without JavaScript), so it
 * answers with a redirect back to the list, as a form post expects. The answer is thrown:
 * Start 1.120's server-function handler sends a thrown Response as it is, while a returned
 * one does not fit the serialisable return type.
 */
export const clearInbox = createServerFn({ method: 'POST' })
  .validator((input: unknown) =>
    v.parse(ClearInboxInput, input instanceof FormData ? Object.fromEntries(input) : input),
  )
  .handler(async (): Promise<never> => {
    const inbox = inboxOrNotFound();
    const request = getWebRequest();
    const refusal = clearRefusal({
      method: request?.method ?? 'GET',
      origin: request?.headers.get('origin') ?? null,
      host: request?.headers.get('host') ?? null,
      fetchSite: request?.headers.get('sec-fetch-site') ?? null,
    });
    if (refusal) {
      const headers: Record<string, string> = refusal.status === 405 ? { Allow: 'POST' } : {};
      throw new Response(refusal.reason, { status: refusal.status, headers });
    }
    const deleted = await inbox.clear();
    throw new Response(null, { status: 303, headers: { Location: `/errors?cleared=${deleted}` } });
  });
