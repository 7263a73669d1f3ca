/**
 * Assembles the options of the browser's Sentry client from the public config: pure, so that
 * the limits and filters can be checked in a unit test. sdk-loader.ts starts the client with them
 * once the page needs it (docs/decisions/0910-*.md, 0950-*.md); tracing is added then, when the
 * page view is traced (tracing.ts).
 */

import type { OfflineTransportOptions, StackParser } from '@sentry/core';
import {
  type BrowserOptions,
  defaultStackParser,
  type tanstackRouterBrowserTracingIntegration,
} from '@sentry/react';
import type { PublicConfig } from '#app/site-config';
import { isDsn, parseDsn, tunnelUrlOf } from './dsn';
import {
  EXTENSION_URLS,
  isLocalInboxPage,
  isNoiseEvent,
  NOT_FOUND_SEGMENTS,
  RESIZE_OBSERVER_LOOP_NOTICES,
} from './filters';
import { limitStackFrames, markInAppFrames } from './in-app';
import { REPORT_QUEUE_SIZE } from './recorder/report-store';

/** How the browser SDK makes its transport (its options type is not exported). */
export type BrowserTransportFactory = NonNullable<BrowserOptions['transport']>;

/** The router as the TanStack Router integration takes it. */
export type TracedRouter = Parameters<typeof tanstackRouterBrowserTracingIntegration>[0];

/**
 * @param transport how envelopes are sent: delivery-transport.ts.
 * @param traced whether this page view is traced: decided when the page started, with the
 *   config's `tracesSampleRate`, for the page load and every navigation after it (decision 0950).
 */
export function browserOptions(
  config: PublicConfig,
  transport: BrowserTransportFactory,
  traced: boolean,
): BrowserOptions & {
  stackParser: StackParser;
  transport: BrowserTransportFactory;
  tunnel: string;
} {
  const dsn = parseDsn(config.dsn);
  if (!isDsn(dsn)) throw new Error(`The browser DSN is not a Sentry DSN (${dsn.error})`);
  // `maxQueueSize` is the browser offline store's own option (its type is not exported).
  const transportOptions: Pick<OfflineTransportOptions, 'bufferSize' | 'flushAtStartup'> & {
    maxQueueSize: number;
  } = {
    // At most 64 envelopes in flight, and as many kept offline (the SDK's store keeps 30):
    // what the recorder kept while the SDK was away fits in both (decision 0510).
    bufferSize: REPORT_QUEUE_SIZE,
    maxQueueSize: REPORT_QUEUE_SIZE,
    // Sends what a previous visit left in the offline store when the next page loads.
    flushAtStartup: true,
  };
  return {
    dsn: config.dsn,
    // Recomputed from the DSN with the one shared mapping, so it always names that DSN.
    tunnel: tunnelUrlOf(dsn),
    environment: config.environment,
    release: config.release,
    // Read when a span starts, so given now although the tracing integration comes later. The
    // page view was sampled already: all of it is traced, or none.
    tracesSampleRate: traced ? 1 : 0,
    transport,
    transportOptions,
    // The 50 frames nearest the throw, each in-app only when it is our code (in-app.ts).
    stackParser: markInAppFrames(limitStackFrames(defaultStackParser)),
    ignoreErrors: RESIZE_OBSERVER_LOOP_NOTICES,
    denyUrls: EXTENSION_URLS,
    ignoreSpans: NOT_FOUND_SEGMENTS,
    beforeSend: (event, hint) => {
      if (isNoiseEvent(event, hint)) return null;
      if (isLocalInboxPage(config.dsn, event.request?.url)) {
        console.warn(
          '[monitoring] not stored: an error on the inbox’s own page',
          hint.originalException,
        );
        return null;
      }
      return event;
    },
    // The back-off after a 429 without Retry-After / X-Sentry-Rate-Limits is the SDK's
    // default of 60 s (core's DEFAULT_RETRY_AFTER); tests/e2e/browser-reporting.spec.ts holds it.
  };
}
