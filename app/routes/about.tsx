import { createFileRoute } from '@tanstack/react-router';
import { pageTitle } from '#app/site-config';

export const Route = createFileRoute('/about')({
  // The same for every visitor until the build changes: kept after its first render (decision 1300).
  staticData: { pageCache: {} },
  head: (context) => ({ meta: [{ title: pageTitle(context, 'How errors are handled') }] }),
  component: About,
});

function About() {
  return (
    <main className="page">
      <h1>How errors are handled</h1>
      <p>
        Errors in the browser are reported through <code>/monitoring</code>, a tunnel on this site's
        own address, so ad blockers do not drop them. The tunnel forwards only to this app's own
        Sentry projects.
      </p>
      <p>
        When a page fails you see a short, generic message with a digest, never the error's own
        text. The digest is the key that finds the full report in the server logs and in Sentry.
      </p>
      <p>Without a Sentry account the app keeps errors in a local inbox on the server instead.</p>
    </main>
  );
}
