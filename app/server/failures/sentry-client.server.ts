/**
 * The server's Sentry client: one ServerRuntimeClient per process with Node's stack parser, its
 * transports (Sentry, or the local inbox without a DSN) and the count of reports in flight.
 */
import {
  type BaseTransportOptions,
  createStackParser,
  createTransport,
  Scope,
  type Transport,
  type TransportMakeRequestResponse,
} from '@sentry/core';
import { nodeStackLineParser, ServerRuntimeClient } from '@sentry/core/server';
import { serverConfig } from '#app/server/env.server';
import { healthSignals } from '#app/server/health/health.server';
import { storeReport } from '#app/server/inbox/store/local-inbox.server';
import { errorLimited, warnLimited } from '#app/server/logging/rate-limited-log';
import { reportingDsn } from '#app/server/monitoring-mode.server';
import { processShared } from '#app/server/process-shared.server';
import { spotlightIntegration } from '#app/server/spotlight.server';
import type { FailureContext } from './log-line';

/**
 * Server-side reporting with Sentry's own server client (`ServerRuntimeClient` from
 * `@sentry/core/server`, the same 11.12 line as @sentry/react): no OpenTelemetry, no module
 * patching, so it bundles cleanly into the nitro output. See docs/decisions/0201-*.md.
 */
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

/**
 * The server Sentry client's stack parser: @sentry/core's Node line parser. Its in_app rule
 * (`filenameIsInApp`) already fits the stacks Node maps for us (docs/decisions/0701-*.md): an
 * absolute path is in-app unless it contains `node_modules/`, so `…/app/routes/…` is and
 * `…/.output/server/node_modules/…` is not; Node internals and `<anonymous>` are not.
 * tests/unit/server/failures/server-stack-parser.test.ts holds that rule to the paths we produce.
 */
export const serverStackParser = createStackParser(nodeStackLineParser());

/**
 * Transports for the server's Sentry client, built with the SDK's own `createTransport`
 * (rate limits, buffering and envelope serialisation stay the SDK's job).
 */
type MakeRequest = Parameters<typeof createTransport>[1];

// Counted where the pages report, read where the shutdown plugin flushes: one per process.
const reports = processShared('server-reports-in-flight', () => ({ count: 0 }));

/** Envelopes handed to a transport and not yet answered (for the shutdown log). */
export function reportsInFlight(): number {
  return reports.count;
}

function counted(makeRequest: MakeRequest): MakeRequest {
  return async (request) => {
    reports.count += 1;
    try {
      return await makeRequest(request);
    } finally {
      reports.count -= 1;
    }
  };
}

/** Sends envelopes to the DSN's envelope endpoint (options.url) with Node's fetch. */
export function makeFetchTransport(options: BaseTransportOptions): Transport {
  return createTransport(
    options,
    counted(async (request): Promise<TransportMakeRequestResponse> => {
      let response: Response;
      try {
        response = await fetch(options.url, {
          method: 'POST',
          body: request.body as BodyInit,
          headers: options.headers,
        });
      } catch (error) {
        // The SDK drops the event quietly: say so once, and let /health tell.
        unreachable(causeOf(error));
        throw error;
      }
      // Drain the body so the connection can be reused.
      await response.arrayBuffer().catch(() => undefined);
      if (response.status >= 500) unreachable(`Sentry answered ${response.status}`);
      else healthSignals().clear('sentry-unreachable');
      return {
        statusCode: response.status,
        headers: {
          'x-sentry-rate-limits': response.headers.get('x-sentry-rate-limits'),
          'retry-after': response.headers.get('retry-after'),
        },
      };
    }),
  );
}

/** A server event that did not reach Sentry: one line (rate-limited), and /health degraded. */
function unreachable(why: string): void {
  warnLimited(
    'sentry unreachable',
    `[monitoring] a server event could not be sent to Sentry: ${why}`,
  );
  healthSignals().note('sentry-unreachable', why);
}

/** fetch's "fetch failed" hides the reason in `cause` (ECONNREFUSED, ENOTFOUND, a timeout). */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

const encoder = new TextEncoder();

/** Local inbox mode: the same envelopes, appended to the local inbox instead of sent. */
export function makeInboxTransport(options: BaseTransportOptions): Transport {
  return createTransport(
    options,
    counted(async (request): Promise<TransportMakeRequestResponse> => {
      const bytes = typeof request.body === 'string' ? encoder.encode(request.body) : request.body;
      await storeReport(bytes);
      return { statusCode: 200 };
    }),
  );
}
