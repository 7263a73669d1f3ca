import { createFileRoute, notFound, Outlet } from '@tanstack/react-router';
import { exampleRoutesEnabled } from '../../server/example.functions';

// The example routes exist in development, and in production only with ENABLE_EXAMPLE_ROUTES.
export const Route = createFileRoute('/sentry-example-page')({
  beforeLoad: async () => {
    if (!(await exampleRoutesEnabled())) throw notFound();
  },
  component: Outlet,
});
