import { makeFetchTransport } from '@sentry/react';
import { describe, expect, it } from 'vitest';
import { type BrowserTransportFactory, browserOptions } from '#app/monitoring/browser-options';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { errorIntegrations } from '#app/monitoring/sdk-loader';
import type { PublicConfig } from '#app/site-config';

// Stands for the offline transport sdk-loader.ts gives.
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
