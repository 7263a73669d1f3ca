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
import { localInbox } from '#app/server/inbox/inbox.server';
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
      const response = await fetch(options.url, {
        method: 'POST',
        body: request.body as BodyInit,
        headers: options.headers,
      });
      // Drain the body so the connection can be reused.
      await response.arrayBuffer().catch(() => undefined);
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

const encoder = new TextEncoder();

/** Local inbox mode: the same envelopes, appended to the local inbox instead of sent. */
export function makeInboxTransport(options: BaseTransportOptions): Transport {
  return createTransport(
    options,
    counted(async (request): Promise<TransportMakeRequestResponse> => {
      const bytes = typeof request.body === 'string' ? encoder.encode(request.body) : request.body;
      await localInbox().append(bytes);
      return { statusCode: 200 };
    }),
  );
}
