/**
 * Assembles the options of the browser's Sentry.init from the public config: pure, so that
 * the limits and filters can be checked in a unit test. app/client.tsx calls Sentry.init.
 */

import type { OfflineTransportOptions } from '@sentry/core';
import {
  type BrowserOptions,
  defaultStackParser,
  makeBrowserOfflineTransport,
  makeFetchTransport,
  tanstackRouterBrowserTracingIntegration,
} from '@sentry/react';
import { dropSegmentsIntegration } from './drop-segments';
import { isDsn, parseDsn, tunnelUrlOf } from './dsn';
import {
  EXTENSION_URLS,
  isNoiseEvent,
  isUnwantedRouterSegment,
  NOT_FOUND_SEGMENTS,
  RESIZE_OBSERVER_LOOP_NOTICES,
} from './filters';
import { markInAppFrames } from './in-app';
import type { PublicConfig } from './public-config';
import { limitStackFrames } from './stack-limit';

/** The seed's transport queue: envelopes waiting to be sent. The browser default is 40. */
export const TRANSPORT_QUEUE_SIZE = 64;

/** The router as the TanStack Router integration takes it. */
export type TracedRouter = Parameters<typeof tanstackRouterBrowserTracingIntegration>[0];

export function browserOptions(config: PublicConfig, router: TracedRouter): BrowserOptions {
  const dsn = parseDsn(config.dsn);
  if (!isDsn(dsn)) throw new Error(`The browser DSN is not a Sentry DSN (${dsn.error})`);
  const transportOptions: Pick<OfflineTransportOptions, 'bufferSize' | 'flushAtStartup'> = {
    bufferSize: TRANSPORT_QUEUE_SIZE,
    // Sends what a previous visit left in the offline store when the next page loads.
    flushAtStartup: true,
  };
  return {
    dsn: config.dsn,
    // Recomputed from the DSN with the one shared mapping, so it always names that DSN.
    tunnel: tunnelUrlOf(dsn),
    environment: config.environment,
    release: config.release,
    tracesSampleRate: config.tracesSampleRate,
    integrations: [
      tanstackRouterBrowserTracingIntegration(router),
      dropSegmentsIntegration(isUnwantedRouterSegment, router),
    ],
    // Envelopes that cannot be sent (offline, network error) wait in IndexedDB and are
    // retried with back-off, when the browser comes back online, and at the next page load.
    transport: makeBrowserOfflineTransport(makeFetchTransport),
    transportOptions,
    // The 50 frames nearest the throw, each in-app only when it is our code (in-app.ts).
    stackParser: markInAppFrames(limitStackFrames(defaultStackParser)),
    ignoreErrors: RESIZE_OBSERVER_LOOP_NOTICES,
    denyUrls: EXTENSION_URLS,
    ignoreSpans: NOT_FOUND_SEGMENTS,
    beforeSend: (event, hint) => (isNoiseEvent(event, hint) ? null : event),
    // The back-off after a 429 without Retry-After / X-Sentry-Rate-Limits is the SDK's
    // default of 60 s (core's DEFAULT_RETRY_AFTER); tests/e2e/browser-reporting.spec.ts holds it.
  };
}
