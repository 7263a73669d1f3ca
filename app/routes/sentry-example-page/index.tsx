import { createFileRoute, Link, useLocation } from '@tanstack/react-router';
import { useState } from 'react';
import { LastReport } from '#app/components/LastReport';
import { pageTitle } from '#app/document-title';
import { callFailingExample } from '#app/server/example.functions';
import { examplePagesOnly } from './-examples-only';

export const Route = createFileRoute('/sentry-example-page/')({
  head: (context) => ({ meta: [{ title: pageTitle(context, 'Sentry example page') }] }),
  loader: examplePagesOnly,
  component: SentryExamplePage,
});

function SentryExamplePage() {
  // `?example-failure=render` fails while rendering on the server too (SSR render failure).
  const search = useLocation({ select: (location) => location.search }) as Record<string, unknown>;
  const [renderBomb, setRenderBomb] = useState(search['example-failure'] === 'render');
  const [serverResult, setServerResult] = useState<string>();

  async function callServer() {
    setServerResult('Calling…');
    try {
      await callFailingExample({ data: { label: 'example page' } });
      setServerResult('The server function did not fail.');
    } catch (error) {
      const digest = (error as { digest?: unknown } | null)?.digest;
      setServerResult(
        `The server function failed${typeof digest === 'string' ? `, digest ${digest}` : ''}.`,
      );
    }
  }

  return (
    <main className="page">
      <h1>Sentry example page</h1>
      <p>Each button fails in a different place. Check the server log, Sentry or the inbox.</p>
      <p className="actions">
        <button
          type="button"
          onClick={() => {
            throw new Error('Sentry example: client error thrown in an event handler');
          }}
        >
          Throw client error
        </button>{' '}
        <button type="button" onClick={() => setRenderBomb(true)}>
          Throw render error
        </button>{' '}
        <button type="button" onClick={callServer}>
          Call failing server function
        </button>
      </p>
      {serverResult ? <p role="status">{serverResult}</p> : null}
      <LastReport />
      <p>
        <Link to="/sentry-example-page/ssr-error">A page whose loader fails on the server</Link>
      </p>
      {renderBomb ? <RenderBomb /> : null}
    </main>
  );
}

function RenderBomb(): never {
  // The marker stands for a secret in a message; tests check it never reaches the browser.
  throw new Error('Sentry example: render error thrown while rendering (render-secret-5e7f)');
}
