import { Await, createFileRoute } from '@tanstack/react-router';
import { Suspense, useState } from 'react';
import {
  type AppOverview,
  getAppOverview,
  getRuntimeHealth,
  runtimeHealthForPage,
} from '#app/server/app-info.functions';
import type { RuntimeHealth } from '#app/server/health/event-loop.server';

/**
 * How long a kept home page stays true: its health section is a sample of the server's event
 * loop, and its uptime counts on. Older than this, the next visitor's render replaces it.
 */
const HOME_PAGE_MAX_AGE_MS = 5_000;

export const Route = createFileRoute('/')({
  // The same for every visitor but for the health sample's age (decision 1300).
  staticData: { pageCache: { maxAgeMs: HOME_PAGE_MAX_AGE_MS } },
  loader: async () => ({
    overview: await getAppOverview(),
    // Not awaited: the shell streams first, this section follows in the same response.
    health: runtimeHealthForPage(),
  }),
  component: Home,
});

function Home() {
  const { overview, health } = Route.useLoaderData();
  return (
    <main className="page">
      <h1>{overview.name}</h1>
      <p>
        Version {overview.version}, environment <strong>{overview.environment}</strong>.
      </p>
      <section aria-labelledby="monitoring-heading">
        <h2 id="monitoring-heading">Monitoring</h2>
        <MonitoringSummary monitoring={overview.monitoring} />
      </section>
      <section aria-labelledby="health-heading">
        <h2 id="health-heading">Server health</h2>
        <Suspense fallback={<p className="muted">Sampling the server's event loop…</p>}>
          <Await promise={health}>{(data) => <HealthReport initial={data} />}</Await>
        </Suspense>
      </section>
    </main>
  );
}

function MonitoringSummary({ monitoring }: { monitoring: AppOverview['monitoring'] }) {
  if (monitoring.kind === 'local-inbox') {
    return (
      <p data-testid="monitoring-mode">
        Local inbox mode: no Sentry project is configured, so errors are kept on this server, in the
        local inbox at <a href="/errors">/errors</a>.
      </p>
    );
  }
  return (
    <p data-testid="monitoring-mode">
      Errors go to Sentry project <strong>{monitoring.project}</strong>
      {monitoring.organisation ? ` of organisation ${monitoring.organisation}` : ''} at{' '}
      <code>{monitoring.host}</code>
      {monitoring.region ? `, region ${monitoring.region}` : ''}.
    </p>
  );
}

function HealthReport({ initial }: { initial: RuntimeHealth }) {
  const [health, setHealth] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);

  async function sampleAgain() {
    setBusy(true);
    setFailed(false);
    try {
      setHealth(await getRuntimeHealth());
    } catch {
      setFailed(true);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div data-testid="health-report">
      <dl className="facts">
        <dt>Event-loop delay (p50 / p99)</dt>
        <dd>
          {health.eventLoopDelayP50Ms} ms / {health.eventLoopDelayP99Ms} ms over {health.windowMs}{' '}
          ms
        </dd>
        <dt>Uptime</dt>
        <dd data-testid="uptime">{health.uptimeSeconds} s</dd>
      </dl>
      <button type="button" onClick={sampleAgain} disabled={busy}>
        {busy ? 'Sampling…' : 'Sample again'}
      </button>
      {failed ? <p role="alert">The server could not be sampled. Try again.</p> : null}
    </div>
  );
}
