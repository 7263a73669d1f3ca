/**
 * Server-side reporting with Sentry's own server client (`ServerRuntimeClient` from
 * `@sentry/core/server`, the same 11.12 line as @sentry/react): no OpenTelemetry, no module
 * patching, so it bundles cleanly into the nitro output. See docs/decisions/0201-*.md.
 */
import { Scope } from '@sentry/core';
import { ServerRuntimeClient } from '@sentry/core/server';
import { serverConfig } from '#app/server/env.server';
import { errorLimited } from '#app/server/logging/rate-limited-log';
import { reportingDsn } from '#app/server/monitoring-mode.server';
import { processShared } from '#app/server/process-shared.server';
import { spotlightIntegration } from '#app/server/spotlight/spotlight-integration.server';
import type { FailureContext } from './log-line';
import { serverStackParser } from './server-stack-parser.server';
import { makeFetchTransport, makeInboxTransport } from './transports.server';

// One client per process: the pages' copy of this module reports, the shutdown plugin's
// copy flushes (see process-shared.server.ts).
const shared = processShared('server-sentry-client', () => ({
  client: undefined as ServerRuntimeClient | undefined,
}));

function sentryClient(): ServerRuntimeClient {
  if (shared.client) return shared.client;
  const config = serverConfig();
  const { monitoring } = config;
  const client = new ServerRuntimeClient({
    // In local inbox mode the built-in DSN names no real host: the transport writes to the inbox.
    dsn: reportingDsn(config),
    transport: monitoring.kind === 'sentry' ? makeFetchTransport : makeInboxTransport,
    stackParser: serverStackParser,
    // In development with SENTRY_SPOTLIGHT, a copy of each event goes to the Spotlight sidecar.
    integrations:
      config.spotlight.kind === 'sidecar' ? [spotlightIntegration(config.spotlight.url)] : [],
    environment: config.environment,
    release: config.release,
    platform: 'node',
    runtime: { name: 'node', version: process.version },
    sendDefaultPii: false,
  });
  client.init();
  shared.client = client;
  return client;
}

/** Sends one event for a server-side failure, tagged with its digest. Never throws. */
export function reportServerFailure(error: unknown, digest: string, context: FailureContext): void {
  try {
    const scope = new Scope();
    scope.setTag('digest', digest);
    scope.setTag('phase', context.phase);
    scope.setTag('route', context.route);
    // The event's own request field, where Sentry and the inbox look for the page's URL.
    scope.addEventProcessor((event) => ({
      ...event,
      request: { ...event.request, method: context.method, url: context.url },
    }));
    sentryClient().captureException(
      error,
      { mechanism: { type: 'tanstack-start', handled: false } },
      scope,
    );
  } catch (reportError) {
    // Reporting must never turn one failure into two; the JSON log line already has it.
    errorLimited(
      'report failed',
      `[monitoring] could not report failure ${digest}: ${reportError instanceof Error ? reportError.message : String(reportError)}`,
    );
  }
}

export type FlushOutcome = 'nothing-reported' | 'sent' | 'timed-out';

/**
 * Waits until every report of this process has been handed over (Sentry answered, or the
 * inbox file is written), for at most `timeoutMs`. Called once at shutdown.
 */
export async function flushServerReports(timeoutMs: number): Promise<FlushOutcome> {
  if (!shared.client) return 'nothing-reported';
  return (await shared.client.flush(timeoutMs)) ? 'sent' : 'timed-out';
}
