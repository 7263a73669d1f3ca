/**
 * Transports for the server's Sentry client, built with the SDK's own `createTransport`
 * (rate limits, buffering and envelope serialisation stay the SDK's job).
 */
import {
  type BaseTransportOptions,
  createTransport,
  type Transport,
  type TransportMakeRequestResponse,
} from '@sentry/core';
import { healthSignals } from '#app/server/health/health-signals.server';
import { storeReport } from '#app/server/inbox/store/local-inbox.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { processShared } from '#app/server/process-shared.server';

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
