import { describe, expect, it } from 'vitest';
import { requestTargetOf } from '#app/server/tunnel/forward-to-sentry.server';

describe('requestTargetOf: where an envelope goes and the Host header it carries', () => {
  it.each([
    [
      'https://o1.ingest.us.sentry.io/api/456/envelope/',
      {
        secure: true,
        host: 'o1.ingest.us.sentry.io',
        port: undefined,
        hostHeader: 'o1.ingest.us.sentry.io',
      },
    ],
    // The scheme's default port is left out of Host, as browsers and Node do.
    [
      'https://sentry.example.com:443/sentry/api/7/envelope/',
      {
        secure: true,
        host: 'sentry.example.com',
        port: undefined,
        hostHeader: 'sentry.example.com',
      },
    ],
    [
      'http://127.0.0.1:9000/api/7/envelope/',
      { secure: false, host: '127.0.0.1', port: 9000, hostHeader: '127.0.0.1:9000' },
    ],
    // The socket wants the bare IPv6 address; the Host header keeps the brackets.
    [
      'http://[::1]:9000/api/7/envelope/',
      { secure: false, host: '::1', port: 9000, hostHeader: '[::1]:9000' },
    ],
  ])('%s', (url, expected) => {
    const target = requestTargetOf(new URL(url));
    expect(target).toEqual({ ...expected, path: new URL(url).pathname });
  });
});
