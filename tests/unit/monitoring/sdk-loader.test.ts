import {
  type Client,
  createEnvelope,
  type Envelope,
  type ErrorEvent,
  type Event,
  type EventHint,
  type Integration,
  type Transport,
  type TransportMakeRequestResponse,
} from '@sentry/core';
import { makeFetchTransport } from '@sentry/react';
import { describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import {
  type BrowserTransportFactory,
  browserOptions,
  DeliveryDeferred,
  deferringTransport,
  deliveryOf,
  errorIntegrations,
} from '#app/monitoring/sdk-loader';
import type { PublicConfig } from '#app/site-config';

describe('deliveryOf: what an answer means for the envelope', () => {
  it.each<[number | undefined, 'sent' | 'later']>([
    [200, 'sent'],
    [204, 'sent'],
    // Final: the same envelope gets the same answer.
    [400, 'sent'],
    [403, 'sent'],
    [408, 'sent'],
    [413, 'sent'],
    // Rate-limited, or the tunnel or Sentry busy or away: another time.
    [429, 'later'],
    [500, 'later'],
    [502, 'later'],
    [503, 'later'],
    [504, 'later'],
    // Nothing was sent (the queue of 64 was full): dropped, as the queue says.
    [undefined, 'sent'],
  ])('%s: %s', (status, delivery) => {
    expect(deliveryOf(status)).toBe(delivery);
  });
});

const event = (id: string): Envelope =>
  createEnvelope({ event_id: id }, [[{ type: 'event' }, { event_id: id }]]) as Envelope;

/** A fetch transport stand-in answering from a list, and the envelopes it was given. */
function answering(...answers: TransportMakeRequestResponse[]) {
  const given: Envelope[] = [];
  const factory = (): Transport => ({
    send: async (envelope) => {
      given.push(envelope);
      return answers.shift() ?? { statusCode: 200 };
    },
    flush: async () => true,
  });
  return { given, factory };
}

describe('deferringTransport: what the SDK would drop waits in the offline store', () => {
  const options = { url: 'http://x', recordDroppedEvent: () => {} };

  it('a 503 throws, for the offline transport to store it; the next envelope goes', async () => {
    const inner = answering({ statusCode: 503 });
    const transport = deferringTransport(inner.factory)(options);
    await expect(transport.send(event('a'))).rejects.toBeInstanceOf(DeliveryDeferred);
    await expect(transport.send(event('b'))).resolves.toEqual({ statusCode: 200 });
    expect(inner.given).toHaveLength(2);
  });

  it('a 400 is final: not kept', async () => {
    const inner = answering({ statusCode: 400 });
    const transport = deferringTransport(inner.factory)(options);
    await expect(transport.send(event('a'))).resolves.toEqual({ statusCode: 400 });
  });

  it('after a 429 with Retry-After: 5, nothing leaves for 5 s, and what comes is kept', async () => {
    let now = 1_000_000;
    const inner = answering({
      statusCode: 429,
      headers: { 'retry-after': '5', 'x-sentry-rate-limits': null },
    });
    const transport = deferringTransport(inner.factory, () => now)(options);
    await expect(transport.send(event('a'))).rejects.toBeInstanceOf(DeliveryDeferred);
    now += 4_999;
    await expect(transport.send(event('b'))).rejects.toBeInstanceOf(DeliveryDeferred);
    expect(inner.given).toHaveLength(1);
    now += 1;
    await expect(transport.send(event('b'))).resolves.toEqual({ statusCode: 200 });
    expect(inner.given).toHaveLength(2);
  });

  it('after a 429 without headers, the SDK default of 60 s', async () => {
    let now = 1_000_000;
    const inner = answering({ statusCode: 429 });
    const transport = deferringTransport(inner.factory, () => now)(options);
    await expect(transport.send(event('a'))).rejects.toBeInstanceOf(DeliveryDeferred);
    now += 59_999;
    await expect(transport.send(event('b'))).rejects.toBeInstanceOf(DeliveryDeferred);
    now += 1;
    await expect(transport.send(event('b'))).resolves.toEqual({ statusCode: 200 });
  });

  it('a network error reaches the offline transport as it is', async () => {
    const failing = (): Transport => ({
      send: async () => {
        throw new TypeError('Failed to fetch');
      },
      flush: async () => true,
    });
    const transport = deferringTransport(failing)(options);
    await expect(transport.send(event('a'))).rejects.toThrow('Failed to fetch');
  });
});

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

// Stands for the offline transport `deliveryTransport`.
const offlineTransport: BrowserTransportFactory = () =>
  makeFetchTransport({ url: '', recordDroppedEvent: () => {} });

const SESSION = { sid: 'a'.repeat(32), started: 1_700_000_000, status: 'ok' as const, errors: 0 };

const config: PublicConfig = {
  dsn: 'https://abc@o123.ingest.us.sentry.io/456',
  tunnel: '/monitoring?o=123&p=456&r=us',
  environment: 'staging',
  release: 'app@1.2.3',
  tracesSampleRate: 0.25,
};

describe('browserOptions', () => {
  const options = browserOptions(config, offlineTransport, false);

  it('reports to the DSN through the tunnel URL computed from it', () => {
    expect(options.dsn).toBe(config.dsn);
    expect(options.tunnel).toBe('/monitoring?o=123&p=456&r=us');
  });

  it.each([
    ['https://abc@o123.ingest.us.sentry.io/456', '/monitoring?o=123&p=456&r=us'],
    ['https://abc@o9.ingest.de.sentry.io/77', '/monitoring?o=9&p=77&r=de'],
    ['https://abc@o42.ingest.sentry.io/1', '/monitoring?o=42&p=1'],
    ['https://abc@sentry.example.com/5', '/monitoring?o=0&p=5'],
    ['http://publickey@127.0.0.1:40123/1', '/monitoring?o=0&p=1'],
    [LOCAL_INBOX_DSN, '/monitoring?o=0&p=1'],
  ])('tunnel for %s is %s', (dsn, tunnel) => {
    expect(browserOptions({ ...config, dsn }, offlineTransport, false).tunnel).toBe(tunnel);
  });

  it('tags events with the environment and release', () => {
    expect(options.environment).toBe('staging');
    expect(options.release).toBe('app@1.2.3');
  });

  it.each([
    [true, 1],
    [false, 0],
  ])('a page view sampled for tracing (%s) traces all of its spans or none', (traced, rate) => {
    expect(browserOptions(config, offlineTransport, traced).tracesSampleRate).toBe(rate);
  });

  it('sends through the transport it is given, flushing what was stored at start', () => {
    expect(options.transport).toBe(offlineTransport);
    expect(options.transportOptions).toMatchObject({ flushAtStartup: true });
  });

  it('starts errors only: no tracing (added for a traced page view), one session', () => {
    const names = errorIntegrations(SESSION).map((integration) => integration.name);
    expect(names).toContain('GlobalHandlers');
    expect(names).not.toContain('BrowserTracing');
    expect(names.filter((name) => name === 'BrowserSession')).toHaveLength(1);
  });

  it('drops noise in beforeSend and keeps other events', () => {
    const beforeSend = options.beforeSend;
    if (!beforeSend) throw new Error('no beforeSend');
    const noise = { type: undefined, message: 'Script error.' } as const;
    const real = { type: undefined, message: 'boom' } as const;
    expect(beforeSend(noise, {})).toBeNull();
    expect(beforeSend(real, { originalException: new Error('boom') })).toBe(real);
    expect(beforeSend(real, { originalException: { isRedirect: true } })).toBeNull();
  });

  it('limits stack traces to the 50 frames nearest to the throw', () => {
    const parser = options.stackParser;
    if (typeof parser !== 'function') throw new Error('no stack parser function');
    const lines = Array.from(
      { length: 120 },
      (_, depth) => `    at f${depth} (http://x/app.js:${depth + 1}:1)`,
    );
    const frames = parser(`Error: deep\n${lines.join('\n')}`);
    expect(frames).toHaveLength(50);
    // Oldest first: the last frame is the one that threw.
    expect(frames.at(-1)?.function).toBe('f0');
    expect(frames[0]?.function).toBe('f49');
  });

  it('marks only our chunks in-app: a React frame is not, the route that threw is', () => {
    const parser = options.stackParser;
    if (typeof parser !== 'function') throw new Error('no stack parser function');
    const origin = 'https://app.example.com/_build/assets';
    const frames = parser(
      [
        'Error: boom',
        `    at onClick (${origin}/sentry-example-page-etmAYWlX.js:1:120)`,
        `    at executeDispatch (${origin}/vendor-react-DDq-4j0n.js:8:9876)`,
        `    at main (${origin}/client-CW0JEvFH.js:1:40)`,
      ].join('\n'),
    );
    expect(frames.map((frame) => [frame.function, frame.in_app])).toEqual([
      ['main', true],
      ['executeDispatch', false],
      ['onClick', true],
    ]);
  });

  it('refuses a config whose DSN is not a DSN', () => {
    expect(() => browserOptions({ ...config, dsn: 'not a dsn' }, offlineTransport, false)).toThrow(
      /DSN/,
    );
  });
});
