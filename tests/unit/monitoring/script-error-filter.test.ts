import type { Client, ErrorEvent, Event, EventHint, Integration } from '@sentry/core';
import { makeFetchTransport } from '@sentry/react';
import { describe, expect, it } from 'vitest';
import { errorIntegrations } from '#app/monitoring/browser-client';
import { browserOptions } from '#app/monitoring/browser-options';
import { LOCAL_INBOX_DSN } from '#app/monitoring/local-dsn';

const PAGE = 'http://127.0.0.1:3000/about';
const EXTENSION = 'chrome-extension://abcdef/content.js';

/** The inbound filter the browser client starts with, over the app's options. */
function installedEventFilter(): { filter: Integration; client: Client } {
  const options = browserOptions(
    {
      dsn: LOCAL_INBOX_DSN,
      tunnel: '/monitoring?o=0&p=1',
      environment: 'test',
      release: 'app@1',
      tracesSampleRate: 0,
    },
    makeFetchTransport,
    false,
  );
  const filter = errorIntegrations({
    sid: 'a'.repeat(32),
    started: 0,
    status: 'ok',
    errors: 0,
  }).find((integration) => integration.name === 'EventFilters');
  if (!filter?.processEvent) throw new Error('no EventFilters integration');
  const client = { getOptions: () => options } as unknown as Client;
  filter.setup?.(client);
  return { filter, client };
}

function onErrorEvent(message: string, frame: { filename: string; lineno: number }): ErrorEvent {
  // The shape GlobalHandlers gives an onerror call without an Error object.
  return {
    type: undefined,
    message,
    exception: { values: [{ stacktrace: { frames: [{ ...frame, function: '?' }] } }] },
  };
}

function thrown(message: string, filename = PAGE): ErrorEvent {
  return {
    type: undefined,
    exception: {
      values: [
        { type: 'Error', value: message, stacktrace: { frames: [{ filename, lineno: 3 }] } },
      ],
    },
  };
}

const withStack = Object.assign(new Error('Script error.'), {
  stack: `Error: Script error.\n    at run (${PAGE}:3:9)`,
});

describe('the installed inbound filter', () => {
  const { filter, client } = installedEventFilter();

  it.each<[string, 'kept' | 'dropped', Event, EventHint]>([
    [
      '"Script error." with no detail',
      'dropped',
      onErrorEvent('Script error.', { filename: PAGE, lineno: 0 }),
      {},
    ],
    [
      '"Script error." with a line',
      'kept',
      onErrorEvent('Script error.', { filename: PAGE, lineno: 12 }),
      {},
    ],
    [
      '"Script error." with an Error and its stack',
      'kept',
      thrown('Script error.'),
      { originalException: withStack },
    ],
    [
      '"Script error." thrown in an extension (denyUrls)',
      'dropped',
      thrown('Script error.', EXTENSION),
      {},
    ],
    ['an ordinary error', 'kept', thrown('Cannot read properties of undefined'), {}],
    // The SDK's other default patterns still apply…
    [
      '"Cannot redefine property: googletag"',
      'dropped',
      thrown('Cannot redefine property: googletag'),
      {},
    ],
    // …and the options' own ignoreErrors.
    [
      '"ResizeObserver loop limit exceeded"',
      'dropped',
      thrown('ResizeObserver loop limit exceeded'),
      {},
    ],
  ])('%s is %s', async (_name, verdict, event, hint) => {
    const result = await filter.processEvent?.(event, hint, client);
    expect(result ? 'kept' : 'dropped').toBe(verdict);
  });
});
