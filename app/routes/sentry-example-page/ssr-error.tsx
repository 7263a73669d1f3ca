import { createFileRoute } from '@tanstack/react-router';
import { examplePagesOnly, pageTitle } from '#app/site-config';

export const Route = createFileRoute('/sentry-example-page/ssr-error')({
  head: (context) => ({ meta: [{ title: pageTitle(context, 'SSR error example') }] }),
  // A method, not an arrow: a mapped stack names an arrow after its first parameter.
  loader(match) {
    examplePagesOnly(match);
    // The marker stands for a secret in a message; tests check it never reaches the browser.
    throw new Error('Sentry example: loader failed during SSR (ssr-loader-secret-4b1d)');
  },
  component: () => <p>This never renders: the loader always fails.</p>,
});
