import { createFileRoute, notFound, Outlet } from '@tanstack/react-router';

// The example routes exist in development, and in production only with ENABLE_EXAMPLE_ROUTES.
export const Route = createFileRoute('/sentry-example-page')({
  beforeLoad: ({ context }) => {
    if (!context.site?.links.examplePage) throw notFound();
  },
  component: Outlet,
});
