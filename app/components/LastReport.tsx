import * as Sentry from '@sentry/react';
import { Link } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { pageRecorder } from '#app/monitoring/recorder/recorder';
import { useSiteConfig } from '#app/site-config';

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
