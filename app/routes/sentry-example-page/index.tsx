/**
 * The example page: buttons that fail in each place a failure can happen, and the last report
 * the browser SDK sent for one.
 */

import * as Sentry from '@sentry/react';
import { createFileRoute, Link, useLocation } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { pageRecorder } from '#app/monitoring/recorder/recorder';
import { callFailingExample } from '#app/server/example.functions';
import { examplePagesOnly, pageTitle, useSiteConfig } from '#app/site-config';

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

interface Report {
  eventId: string;
  status: number | undefined;
}

/**
 * Says when the browser SDK has sent an event, so that pressing a button that throws has a
 * visible result: the event's id, and in local inbox mode a link to it. Nothing before that.
 */
export function LastReport() {
  const [report, setReport] = useState<Report>();
  const inbox = useSiteConfig()?.links.errorInbox === true;
  useEffect(() => {
    let unsubscribe: (() => void) | undefined;
    let unmounted = false;
    // The SDK loads after hydration (decision 0910): listen once it has taken over.
    void pageRecorder()
      ?.whenHandedOver()
      .then(() => {
        if (unmounted) return;
        unsubscribe = Sentry.getClient()?.on('afterSendEvent', (event, response) => {
          if (event.type !== undefined || !event.event_id) return; // transactions are not reports
          setReport({ eventId: event.event_id, status: response.statusCode });
        });
      });
    return () => {
      unmounted = true;
      unsubscribe?.();
    };
  }, []);
  if (!report) return null;
  const accepted = report.status === 200;
  return (
    <p role="status" data-testid="last-report">
      {accepted ? 'Reported' : `Not accepted (answer ${report.status ?? 'none'})`}: event{' '}
      <code>{report.eventId.slice(0, 8)}</code>
      {inbox ? (
        <>
          {' '}
          in{' '}
          <Link to="/errors/$eventId" params={{ eventId: report.eventId }}>
            the error inbox
          </Link>
        </>
      ) : (
        ' to Sentry'
      )}
      .
    </p>
  );
}
