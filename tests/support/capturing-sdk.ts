/**
 * The real browser SDK, started as the page starts it (app/monitoring/sdk-loader.ts), with a
 * transport that keeps every envelope instead of sending it: for the unit tests that hold our
 * hand-written envelopes to what the SDK itself writes.
 */
import type { Envelope } from '@sentry/core';
import { browserOptions, startBrowserClient } from '#app/monitoring/sdk-loader';
import type { PageSession } from '#app/monitoring/start-browser-monitoring';
import type { PublicConfig } from '#app/site-config';

/** A site config as a page in local inbox mode gets it, tracing off. */
export const TEST_PUBLIC_CONFIG: PublicConfig = {
  dsn: 'http://public@127.0.0.1:3000/1',
  tunnel: '/monitoring?o=0&p=1',
  environment: 'production',
  release: 'app@1.0.0',
  tracesSampleRate: 0,
};

/** Starts the SDK with `session` as the page's; returns the envelopes it sends, as it sends them. */
export function startCapturingSdk(session: PageSession, config = TEST_PUBLIC_CONFIG): Envelope[] {
  const sent: Envelope[] = [];
  const capture = () => ({
    send: async (envelope: Envelope) => {
      sent.push(envelope);
      return { statusCode: 200 };
    },
    flush: async () => true,
  });
  startBrowserClient(browserOptions(config, capture, false), session);
  return sent;
}
