/**
 * Server functions behind the /errors pages (local inbox mode only). With SENTRY_DSN set
 * each throws notFound(), so the pages answer 404. Inputs are validated with valibot.
 */
import { notFound, redirect } from '@tanstack/react-router';
import { createServerFn } from '@tanstack/react-start';
import { getWebRequest } from '@tanstack/react-start/server';
import * as v from 'valibot';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { serverConfig } from './env.server';
import { stackForDetail, topFramesFor } from './inbox/event-stack.server';
import { type LocalInbox, localInbox } from './inbox/inbox.server';
import { currentInboxAccess } from './inbox/inbox-access.server';
import { type EventDetail, readEventDetail, type UnshownEvent } from './inbox/inbox-event';
import { findEventEntry, type InboxPage, inboxPage } from './inbox/inbox-view';
import type { ExceptionView } from './inbox/stack-view';
import { wellFormed } from './inbox/well-formed';
import { formPostRefusalOf, refusalResponse } from './security/form-post-guard';

/**
 * The inbox, for a request that may read it: a 404 with Sentry (there is no inbox), and a
 * redirect to the sign-in page for a request the inbox is private to (inbox-access.ts).
 * `signedIn`: the request holds a session, so the page offers to sign out.
 */
function inboxOrNotFound(): { inbox: LocalInbox; signedIn: boolean } {
  if (serverConfig().monitoring.kind !== 'local-inbox') throw notFound();
  const access = currentInboxAccess();
  if (access === 'sign-in') throw redirect({ to: '/errors/sign-in' });
  return { inbox: localInbox(), signedIn: access === 'session' };
}

export const InboxPageInput = v.object({
  page: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000)),
});

export const listInboxEvents = createServerFn({ method: 'GET' })
  .validator(InboxPageInput)
  .handler(async ({ data }): Promise<InboxPage & { inboxDir: string; signedIn: boolean }> => {
    const { inbox, signedIn } = inboxOrNotFound();
    const entries = await inbox.list();
    const page = inboxPage(entries, data.page);
    // Only the events on this page: at most INBOX_PAGE_SIZE entries are read and resolved.
    const entryIds = new Map(
      page.events.map((event) => [event.eventId, findEventEntry(entries, event.eventId)?.id]),
    );
    const topFrames = await topFramesFor(
      inbox,
      [...entryIds.values()].filter((id) => id !== undefined),
    );
    const events = page.events.map((event) => {
      const topFrame = topFrames.get(entryIds.get(event.eventId) ?? '');
      return topFrame ? { ...event, topFrame } : event;
    });
    return wellFormed({ ...page, events, inboxDir: inbox.dir, signedIn });
  });

// Any text up to a sane length: an id that names no event is a 404, not a failure.
export const InboxEventInput = v.object({
  eventId: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
});

/** The detail page's event: its stack resolved and trimmed to what the page shows. */
export type InboxEventPage = Omit<EventDetail, 'exceptions'> & { stack: ExceptionView[] };

export const getInboxEvent = createServerFn({ method: 'GET' })
  .validator(InboxEventInput)
  .handler(async ({ data }): Promise<(InboxEventPage | UnshownEvent) & { signedIn: boolean }> => {
    const { inbox, signedIn } = inboxOrNotFound();
    const entry = findEventEntry(await inbox.list(), data.eventId);
    const bytes = entry ? await inbox.read(entry.id) : undefined;
    if (!bytes || !entry) throw notFound();
    let read: ReturnType<typeof readEventDetail>;
    try {
      read = readEventDetail(bytes, entry.id);
    } catch (error) {
      // Reported to the log, not to the inbox: a failure stored there would be one more
      // entry each time the page is viewed.
      warnLimited(
        'inbox entry unshown',
        `[inbox] entry ${entry.id} could not be shown: ${(error as Error).message}`,
      );
      return { eventId: data.eventId, unshown: true, signedIn };
    }
    if (!read) throw notFound();
    const { exceptions, ...detail } = read.detail;
    // Resolved now, as the page is read; never throws (event-stack.server.ts).
    const stack = await stackForDetail(inbox, entry.id, exceptions, read.event);
    return wellFormed({ ...detail, stack, signedIn });
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
    const { inbox } = inboxOrNotFound();
    const refusal = formPostRefusalOf(getWebRequest(), 'clears the inbox');
    if (refusal) throw refusalResponse(refusal);
    const deleted = await inbox.clear();
    throw new Response(null, { status: 303, headers: { Location: `/errors?cleared=${deleted}` } });
  });
