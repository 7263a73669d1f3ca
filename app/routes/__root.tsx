/**
 * The root route owns the document: the head with the recorder first in it, the navigation, the
 * site config, and the fallbacks rendered inside the same document.
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
import recorderScript from '#app/monitoring/recorder/recorder.ts?inline-script';
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
        {/* First: it catches what fails from here on, our own scripts included. */}
        <RecorderScript />
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

/**
 * The recorder (app/monitoring/recorder/recorder.ts), inline, first in the document head, so that
 * it runs before any module and catches what fails from there on. Its nonce comes as every
 * script's does (app/start-1.120/script-nonce.server.ts). The text is the server's only:
 * the browser has run it by the time React hydrates, and the bundle would only carry it twice.
 */
export function RecorderScript() {
  return (
    <script
      id="monitoring-recorder"
      // biome-ignore lint/security/noDangerouslySetInnerHtml: our own code, bundled at build time.
      dangerouslySetInnerHTML={{ __html: import.meta.env.SSR ? recorderScript : '' }}
      suppressHydrationWarning
    />
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
