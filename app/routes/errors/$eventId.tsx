import { createFileRoute, notFound, redirect } from '@tanstack/react-router';
import * as v from 'valibot';
import { getInboxEvent } from '#app/server/inbox/inbox.functions';
import { InboxEventInput } from '#app/server/inbox/inbox-inputs';
import { inboxPagesOnly, pageTitle } from '#app/site-config';

/**
 * An event's own address, as the inbox's earlier pages and the server's log lines give it:
 * a redirect to its issue's page showing that event, or the not-found page.
 */
export const Route = createFileRoute('/errors/$eventId')({
  // A method, not an arrow: a mapped stack names an arrow after its first parameter.
  async loader(match) {
    inboxPagesOnly(match);
    // An id no event can have (over-long, say) is the URL's fault: the not-found page, not a
    // failed server-function call and a 500.
    const input = v.safeParse(InboxEventInput, { eventId: match.params.eventId });
    if (!input.success) throw notFound();
    const { issueId, eventId } = await getInboxEvent({ data: input.output });
    throw redirect({
      to: '/errors/issues/$issueId',
      params: { issueId: String(issueId) },
      search: { event: eventId },
    });
  },
  head: (context) => ({ meta: [{ title: pageTitle(context, 'Captured event') }] }),
});
