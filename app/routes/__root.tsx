/**
 * The root route owns the document: the head, the navigation, the site config, and the fallbacks
 * rendered inside the same document. The recorder is put first into the head by the server's page
 * renderer (`recorderFirstInHead` in app/start-1.120/render-page.server.tsx), not by React.
 */
import {
  createRootRouteWithContext,
  HeadContent,
  Link,
  Outlet,
  Scripts,
  useRouterState,
} from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { ErrorFallback, NotFound } from '#app/components/ErrorFallback';
import type { FileRouteTypes } from '#app/routeTree.gen';
import { failRootBeforeLoadOnRequest } from '#app/server/example.functions';
import { pageTitle, type RouterContext, SiteConfigScript, useSiteConfig } from '#app/site-config';
import appCss from '#app/styles/app.css?url';

export const Route = createRootRouteWithContext<RouterContext>()({
  head: (context) => ({
    meta: [
      { charSet: 'utf-8' },
      { name: 'viewport', content: 'width=device-width, initial-scale=1' },
      // A child route's own title wins over this one (HeadContent keeps the deepest).
      { title: pageTitle(context) },
    ],
    links: [
      { rel: 'stylesheet', href: appCss },
      { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' },
    ],
  }),
  staticData: {
    // Read by beforeLoad below: a page asked with it is rendered, never taken from the cache.
    perRequestQuery: ['example-failure'],
    // The not-found page is the same for every visitor and every unknown path (decision 1300).
    notFoundPageCache: {},
  },
  // Test hook for the root-level failure path; inert unless example routes are enabled.
  beforeLoad: ({ location, context }) =>
    failRootBeforeLoadOnRequest(location.search, context.site?.links.examplePage === true),
  component: RootComponent,
  errorComponent: (props) => (
    <RootDocument>
      <ErrorFallback {...props} />
    </RootDocument>
  ),
  notFoundComponent: NotFound,
});

function RootComponent() {
  return (
    <RootDocument>
      <Outlet />
    </RootDocument>
  );
}

function RootDocument({ children }: { children: ReactNode }) {
  // The error component renders this document too, also when the root's beforeLoad threw.
  const site = useSiteConfig();
  return (
    <html lang="en">
      <head>
        <HeadContent />
        <SiteConfigScript config={site} />
      </head>
      <body>
        <nav className="nav" aria-label="Main">
          <Link to="/" activeOptions={{ exact: true }}>
            Home
          </Link>
          <Link to="/about">How errors are handled</Link>
          {site?.links.examplePage ? <Link to="/sentry-example-page">Example page</Link> : null}
          {site?.links.errorInbox ? <InboxNavLink /> : null}
        </nav>
        {children}
        <Scripts />
      </body>
    </html>
  );
}

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
