/**
 * Where the server's failure reports go: the server's Sentry client, one ServerRuntimeClient per
 * process with Node's stack parser, its transports (Sentry, or the local inbox without a DSN) and
 * the count of reports in flight; then in development a copy of each to the Spotlight sidecar.
 * Sentry's own server client (`ServerRuntimeClient` from `@sentry/core/server`, the same 11.12
 * line as @sentry/react): no OpenTelemetry, no module patching, so it bundles cleanly into the
 * nitro output. See docs/decisions/0201-*.md.
 */
import {
  type BaseTransportOptions,
  createStackParser,
  createTransport,
  defineIntegration,
  type Envelope,
  Scope,
  serializeEnvelope,
  type Transport,
  type TransportMakeRequestResponse,
} from '@sentry/core';
import { nodeStackLineParser, ServerRuntimeClient } from '@sentry/core/server';
import { serverConfig } from '#app/server/env.server';
import { healthSignals } from '#app/server/health/health.server';
import { storeReport } from '#app/server/inbox/store/local-inbox.server';
import { errorLimited, warnLimited } from '#app/server/logging/rate-limited-log';
import { reportingDsn } from '#app/server/site-config.server';
import { processShared } from '#app/start-1.120/process-shared.server';
import type { FailureContext } from './record-failure.server';
import { eventRequestFacts, osContext } from './server-event-context.server';
import { withOriginalFacts } from './server-frames.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'server-sentry-client': { client: ServerRuntimeClient | undefined };
    'server-reports-in-flight': { count: number };
  }
}

// One client per process: the pages' copy of this module reports, the shutdown plugin's
// copy flushes (see app/start-1.120/process-shared.server.ts).
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
    // Our frames completed from the build's maps, and the OS, on every server event; in
    // development with SENTRY_SPOTLIGHT, a copy of each event goes to the Spotlight sidecar.
    integrations: [
      originalFramesIntegration(),
      ...(config.spotlight.kind === 'sidecar' ? [spotlightIntegration(config.spotlight.url)] : []),
    ],
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

/**
 * Sends one event for a server-side failure, tagged with its digest, with the request as
 * Sentry's `request` interface and the route as its transaction. Returns the event's id (the
 * log line carries it), or undefined when it could not be reported. Never throws.
 */
export function reportServerFailure(
  error: unknown,
  digest: string,
  context: FailureContext,
): string | undefined {
  try {
    const scope = new Scope();
    scope.setTag('digest', digest);
    scope.setTag('phase', context.phase);
    const facts = context.incoming
      ? eventRequestFacts({
          method: context.method,
          url: context.incoming.url,
          headers: context.incoming.headers,
          route: context.route,
          serverFunction: context.phase === 'server-function',
        })
      : undefined;
    // A server function's route is its calling page's, as the transaction names it; never the
    // function's internal id, which the server_function tag and context name readably.
    scope.setTag('route', facts?.serverFunction ? facts.transaction : context.route);
    if (facts?.serverFunction) {
      scope.setTag('server_function', facts.serverFunction.name);
      scope.setContext('server_function', { ...facts.serverFunction });
    }
    // The event's own request field, where Sentry and the inbox look for the page's URL.
    const request = facts?.request ?? { method: context.method, url: context.url };
    scope.addEventProcessor((event) => ({
      ...event,
      request: { ...event.request, ...request },
      ...(facts ? { transaction: facts.transaction } : {}),
    }));
    return sentryClient().captureException(
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
    return undefined;
  }
}

/**
 * Our frames with their source lines and original names (server-frames.server.ts), and the
 * `os` context as @sentry/node's Context integration sends it (`runtime` is the client's own
 * option). Done here, where the event is made, so Sentry and the local inbox get the same.
 */
const originalFramesIntegration = defineIntegration(() => ({
  name: 'OriginalServerFrames',
  processEvent(event) {
    for (const exception of event.exception?.values ?? []) {
      const frames = exception.stacktrace?.frames;
      if (frames && exception.stacktrace) exception.stacktrace.frames = withOriginalFacts(frames);
    }
    event.contexts = { ...event.contexts, os: { ...osContext(), ...event.contexts?.os } };
    return event;
  },
}));

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
 * tests/unit/server/failures/sentry-client.test.ts holds that rule to the paths we produce.
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

/** After this many failures in a row the sidecar is taken to be gone (as the SDKs do). */
const MAX_FAILURES = 3;

/** A sidecar that takes longer than this counts as a failure: a hung one must not pile up requests. */
const SIDECAR_TIMEOUT_MS = 5_000;

/**
 * SENTRY_SPOTLIGHT in development (decision 0930), the server client's Spotlight integration:
 * every envelope the client sends also goes to the
 * sidecar, whatever the transport does with it (Sentry or the local inbox). What @sentry/node's
 * `spotlightIntegration` and @sentry/browser's `spotlightBrowserIntegration` do, written here
 * because our server client is @sentry/core's (decision 0201) and @sentry/node would bring
 * OpenTelemetry with it. See docs/decisions/0930-spotlight-in-development.md.
 */
export const spotlightIntegration = defineIntegration((sidecarUrl: string) => ({
  // The SDKs' name: core's client sets up integrations named Spotlight* even without a DSN.
  name: 'Spotlight',
  setup(client) {
    let failures = 0;
    const warnOnce = onlyOnce((reason: unknown) =>
      console.warn(
        `[monitoring] Spotlight: could not send to ${sidecarUrl} (is \`npm run spotlight\` running?): ${reason instanceof Error ? reason.message : String(reason)}`,
      ),
    );
    client.on('beforeEnvelope', (envelope: Envelope) => {
      if (failures >= MAX_FAILURES) return;
      fetch(sidecarUrl, {
        method: 'POST',
        body: serializeEnvelope(envelope) as BodyInit,
        headers: { 'Content-Type': 'application/x-sentry-envelope' },
        signal: AbortSignal.timeout(SIDECAR_TIMEOUT_MS),
      }).then(
        async (response) => {
          // Drain the body so the connection can be reused.
          await response.arrayBuffer().catch(() => undefined);
          if (response.ok) failures = 0;
          else warnOnce(`HTTP ${response.status}`);
        },
        (error: unknown) => {
          failures += 1;
          warnOnce(error);
        },
      );
    });
  },
}));

function onlyOnce<T>(action: (value: T) => void): (value: T) => void {
  let done = false;
  return (value) => {
    if (done) return;
    done = true;
    action(value);
  };
}
