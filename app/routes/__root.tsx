import {
  createRootRoute,
  HeadContent,
  Link,
  Outlet,
  Scripts,
  useMatch,
} from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { ErrorFallback } from '../components/ErrorFallback';
import { NotFound } from '../components/NotFound';
import { PublicConfigScript } from '../components/PublicConfigScript';
import { failRootBeforeLoadOnRequest } from '../server/example.functions';
import { getPublicConfig } from '../server/public-config.functions';
import { getSiteLinks } from '../server/site-links.functions';
import appCss from '../styles/app.css?url';

export const Route = createRootRoute({
  head: () => ({
    meta: [
      { charSet: 'utf-8' },
      { name: 'viewport', content: 'width=device-width, initial-scale=1' },
      { title: 'Start Monitoring' },
    ],
    links: [
      { rel: 'stylesheet', href: appCss },
      { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' },
    ],
  }),
  // Test hook for the root-level failure path; inert unless example routes are enabled.
  beforeLoad: ({ location }) => failRootBeforeLoadOnRequest(location.search),
  // The browser's monitoring config and the optional pages, read per request: fetched once,
  // then never stale.
  loader: async () => {
    const [publicConfig, links] = await Promise.all([getPublicConfig(), getSiteLinks()]);
    return { publicConfig, links };
  },
  staleTime: Number.POSITIVE_INFINITY,
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
  // Not Route.useLoaderData(): the error component renders this document too, maybe without it.
  const rootData = useMatch({ from: '__root__', shouldThrow: false })?.loaderData;
  return (
    <html lang="en">
      <head>
        <HeadContent />
        <PublicConfigScript config={rootData?.publicConfig} />
      </head>
      <body>
        <nav className="nav" aria-label="Main">
          <Link to="/" activeOptions={{ exact: true }}>
            Home
          </Link>
          <Link to="/about">How errors are handled</Link>
          {rootData?.links.examplePage ? <Link to="/sentry-example-page">Example page</Link> : null}
          {rootData?.links.errorInbox ? <Link to="/errors">Error inbox</Link> : null}
        </nav>
        {children}
        <Scripts />
      </body>
    </html>
  );
}
