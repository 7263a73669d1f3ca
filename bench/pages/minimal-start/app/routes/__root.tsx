import { createRootRoute, HeadContent, Link, Outlet, Scripts } from '@tanstack/react-router';
// The app's own stylesheet and favicon (public is the app's too, app.config.ts).
import appCss from '../../../../../app/styles/app.css?url';

// The app's document without monitoring: the same head and navigation, no loader, no config.
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
  component: RootComponent,
});

function RootComponent() {
  return (
    <html lang="en">
      <head>
        <HeadContent />
      </head>
      <body>
        <nav className="nav" aria-label="Main">
          <Link to="/" activeOptions={{ exact: true }}>
            Home
          </Link>
          <Link to="/about">How errors are handled</Link>
        </nav>
        <Outlet />
        <Scripts />
      </body>
    </html>
  );
}
