import { useRouterState } from '@tanstack/react-router';
import type { FileRouteTypes } from '#app/routeTree.gen';

const INBOX_PATH = '/errors' satisfies FileRouteTypes['to'];

/** Pure: whether a pathname is the inbox or one of its pages (what `Link`'s default active test says). */
export function isInboxPath(pathname: string): boolean {
  return pathname === INBOX_PATH || pathname.startsWith(`${INBOX_PATH}/`);
}

/**
 * The navigation's link to the local error inbox, as a plain document link rather than a
 * router `Link`: Router 1.120 spends about 0.07 ms of server CPU on each `Link` it renders
 * (`buildLocation` and a thrown `URL` parse), and this link, the one monitoring adds to every
 * page, should cost the pages nothing. Opening the inbox loads a document (decision 0860).
 * Marked active the way `Link` marks the others, so the navigation looks the same.
 */
export function InboxNavLink() {
  const active = useRouterState({ select: (state) => isInboxPath(state.location.pathname) });
  return active ? (
    <a href={INBOX_PATH} className="active" data-status="active" aria-current="page">
      Error inbox
    </a>
  ) : (
    <a href={INBOX_PATH}>Error inbox</a>
  );
}
