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
import { localInbox } from '../inbox/inbox.server';

/** Sends envelopes to the DSN's envelope endpoint (options.url) with Node's fetch. */
export function makeFetchTransport(options: BaseTransportOptions): Transport {
  return createTransport(options, async (request): Promise<TransportMakeRequestResponse> => {
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
  });
}

const encoder = new TextEncoder();

/** Local inbox mode: the same envelopes, appended to the local inbox instead of sent. */
export function makeInboxTransport(options: BaseTransportOptions): Transport {
  return createTransport(options, async (request): Promise<TransportMakeRequestResponse> => {
    const bytes = typeof request.body === 'string' ? encoder.encode(request.body) : request.body;
    await localInbox().append(bytes);
    return { statusCode: 200 };
  });
}
