import {
  createRootRouteWithContext,
  HeadContent,
  Link,
  Outlet,
  Scripts,
} from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { ErrorFallback } from '#app/components/ErrorFallback';
import { InboxNavLink } from '#app/components/InboxNavLink';
import { NotFound } from '#app/components/NotFound';
import { RecorderScript } from '#app/components/RecorderScript';
import { pageTitle } from '#app/document-title';
import { failRootBeforeLoadOnRequest } from '#app/server/example.functions';
import { type RouterContext, SiteConfigScript, useSiteConfig } from '#app/site-config';
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
