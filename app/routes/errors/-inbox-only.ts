import { notFound } from '@tanstack/react-router';
import type { RouterContext } from '#app/site-config';

/**
 * The /errors pages exist in local inbox mode only; with SENTRY_DSN each answers the site's
 * 404 page before anything reads the inbox or validates the URL. From each page's loader, as
 * ../sentry-example-page/-examples-only.ts explains. (The `-` prefix keeps this file out of the
 * route tree.)
 */
export function inboxPagesOnly({ context }: { context: RouterContext }): void {
  if (!context.site?.links.errorInbox) throw notFound();
}
