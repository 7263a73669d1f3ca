import { describe, expect, it } from 'vitest';
import { DEFAULT_SPOTLIGHT_URL, parseServerEnv, spotlightSidecarUrl } from '#app/server/env.server';

function config(env: Record<string, string | undefined>) {
  const result = parseServerEnv(env);
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

describe('parseServerEnv', () => {
  it('gives the documented defaults for an empty environment', () => {
    const c = config({});
    expect(c).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      production: true,
      monitoring: { kind: 'local-inbox', inboxDir: '.data/inbox' },
      tunnelMaxBytes: 1048576,
      tunnelTimeoutMs: 10000,
      environment: 'production',
      tracesSampleRate: 1,
      exampleRoutes: false,
    });
    expect(c.release).toMatch(/@\d+\.\d+\.\d+/);
  });

  it('uses Sentry mode, its sample-rate default and the allow-list when SENTRY_DSN is set', () => {
    const c = config({
      SENTRY_DSN: 'https://k@o1.ingest.us.sentry.io/2',
      SENTRY_TUNNEL_ALLOWED_DSNS: ' https://a@o3.ingest.sentry.io/4 , http://b@127.0.0.1:9000/5 ',
      NODE_ENV: 'development',
    });
    expect(c.monitoring.kind).toBe('sentry');
    expect(c.tunnelAllowedDsns.map((d) => d.projectId)).toEqual(['2', '4', '5']);
    expect(c.tracesSampleRate).toBe(0.1);
    expect(c.environment).toBe('development');
    expect(c.exampleRoutes).toBe(true);
  });

  it.each([
    ['ENABLE_EXAMPLE_ROUTES', 'true', 'exampleRoutes', true],
    ['ENABLE_EXAMPLE_ROUTES', '0', 'exampleRoutes', false],
    ['SENTRY_TRACES_SAMPLE_RATE', '0.25', 'tracesSampleRate', 0.25],
    ['SENTRY_TRACES_SAMPLE_RATE', '1', 'tracesSampleRate', 1],
    ['SENTRY_TUNNEL_MAX_BYTES', '2048', 'tunnelMaxBytes', 2048],
    ['PORT', '0', 'port', 0],
    ['PORT', '', 'port', 3000],
    ['SENTRY_ENVIRONMENT', 'staging', 'environment', 'staging'],
  ])('%s=%j gives %s=%j', (name, value, key, expected) => {
    expect(config({ [name]: value })[key as keyof ReturnType<typeof config>]).toEqual(expected);
  });

  it.each([
    ['PORT', 'abc', 'must be a whole number'],
    ['PORT', '70000', 'must be at most 65535'],
    [
      'SENTRY_DSN',
      'https://o1.ingest.sentry.io/2',
      'is not a Sentry DSN (no public key before the @), got "https://o1.ingest.sentry.io/2"',
    ],
    [
      'SENTRY_DSN',
      "'https://k@o1.ingest.sentry.io/2'",
      `is not a Sentry DSN (not a URL), got "'https://k@o1.ingest.sentry.io/2'"; remove the quotes around it`,
    ],
    ['SENTRY_TUNNEL_ALLOWED_DSNS', 'https://k@x/1,nope', 'is not a Sentry DSN'],
    ['SENTRY_TUNNEL_MAX_BYTES', '-5', 'must be a whole number'],
    ['SENTRY_TUNNEL_TIMEOUT_MS', '0', 'must be at least 1'],
    ['SENTRY_TRACES_SAMPLE_RATE', '1.5', 'must be a number from 0 to 1'],
    ['ENABLE_EXAMPLE_ROUTES', 'maybe', 'must be true or false'],
    ['MONITORING_INBOX_TOKEN', 'short', 'must be at least 16 characters'],
    ['MONITORING_INBOX_TRUST_LOOPBACK', 'nginx', 'must be true or false'],
    ['PUBLIC_URL', 'example.com', 'is not a URL, got "example.com"'],
    ['PUBLIC_URL', 'ftp://example.com', 'must be an http:// or https:// URL'],
    ['ALLOWED_HOSTS', 'example.com,http://x', '"http://x" is not a host name'],
    ['SENTRY_TUNNEL_BODY_TIMEOUT_MS', '0', 'must be at least 1'],
    ['LOAD_SHEDDING_LAG_MS', 'fast', 'must be a whole number'],
    ['MONITORING_INBOX_MAX_EVENTS', '50', 'must be at least 100'],
    ['MONITORING_INBOX_MAX_EVENTS', 'lots', 'must be a whole number'],
    [
      'MONITORING_INBOX_MAX_MB',
      '4',
      'must be at least 8 (MiB: the database and its write-ahead log',
    ],
    ['MONITORING_INBOX_MAX_MB', '1.5', 'must be a whole number'],
    ['MONITORING_INBOX_MAX_MB', '2000000', 'must be at most 1048576'],
    ['SENTRY_SPOTLIGHT', 'maybe', "must be true, false or the Spotlight sidecar's http:// URL"],
  ])('rejects %s=%j naming it', (name, value, reason) => {
    const result = parseServerEnv({ [name]: value });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(`${name}: ${reason}`);
  });

  it.each([
    [{ NODE_ENV: 'development' }, { kind: 'open' }],
    [{ NODE_ENV: 'development', MONITORING_INBOX_TRUST_LOOPBACK: 'true' }, { kind: 'open' }],
    [
      { NODE_ENV: 'development', MONITORING_INBOX_TOKEN: 'a-token-of-20-chars' },
      { kind: 'token', token: 'a-token-of-20-chars', generated: false, trustLoopback: false },
    ],
    // Production always asks for a sign-in: with no token set, one made for this run.
    [{}, { kind: 'token', token: 'made-for-this-run', generated: true, trustLoopback: false }],
    [
      { MONITORING_INBOX_TRUST_LOOPBACK: 'true' },
      { kind: 'token', token: 'made-for-this-run', generated: true, trustLoopback: true },
    ],
    [
      { MONITORING_INBOX_TOKEN: ' a-token-of-20-chars ', MONITORING_INBOX_TRUST_LOOPBACK: 'false' },
      { kind: 'token', token: 'a-token-of-20-chars', generated: false, trustLoopback: false },
    ],
  ])('inbox access for %j is %j', (env, access) => {
    const result = parseServerEnv(env, () => 'made-for-this-run');
    if (!result.ok) throw new Error(result.message);
    expect(result.config.inboxAccess).toEqual(access);
  });

  it('makes a token of 32 random bytes, base64url, a new one each start', () => {
    const tokens = [config({}), config({})].map((c) =>
      c.inboxAccess.kind === 'token' ? c.inboxAccess.token : '',
    );
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens[0]).not.toBe(tokens[1]);
  });

  it.each([
    [{ NODE_ENV: 'development', PUBLIC_URL: 'https://app.example.com' }, 'any', true],
    [{}, 'any', false],
    [{ PUBLIC_URL: 'https://App.Example.com:8443/x' }, ['app.example.com:8443'], true],
    [{ PUBLIC_URL: 'http://app.example.com' }, ['app.example.com'], false],
    [
      { PUBLIC_URL: 'https://app.example.com', ALLOWED_HOSTS: 'A.example.com, [::1]:3000' },
      ['a.example.com', '[::1]:3000'],
      true,
    ],
  ])('with %j the allowed hosts are %j and HSTS is %j', (env, hosts, hsts) => {
    const c = config(env);
    expect(c.allowedHosts).toEqual(hosts);
    expect(c.hsts).toBe(hsts);
  });

  it.each([
    [{ NODE_ENV: 'development' }, { kind: 'off' }],
    [{ NODE_ENV: 'development', SENTRY_SPOTLIGHT: 'false' }, { kind: 'off' }],
    [
      { NODE_ENV: 'development', SENTRY_SPOTLIGHT: 'true' },
      { kind: 'sidecar', url: 'http://localhost:8969/stream' },
    ],
    [
      { NODE_ENV: 'development', SENTRY_SPOTLIGHT: 'http://127.0.0.1:9000' },
      { kind: 'sidecar', url: 'http://127.0.0.1:9000/stream' },
    ],
    // Never in production: ignored (the server says so at start), not an error.
    [{ SENTRY_SPOTLIGHT: 'true' }, { kind: 'ignored-in-production' }],
    [{ NODE_ENV: 'production', SENTRY_SPOTLIGHT: '0' }, { kind: 'off' }],
  ])('with %j Spotlight is %j', (env, spotlight) => {
    expect(config(env).spotlight).toEqual(spotlight);
  });

  it('names every bad variable in one message', () => {
    const result = parseServerEnv({ PORT: 'x', SENTRY_DSN: 'y', SENTRY_TRACES_SAMPLE_RATE: '3' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(
        result.message
          .split('\n')
          .slice(1)
          .map((line) => line.trim().split(':')[0]),
      ).toEqual(['PORT', 'SENTRY_DSN', 'SENTRY_TRACES_SAMPLE_RATE']);
    }
  });
});

describe('TRUSTED_PROXIES', () => {
  it('trusts no proxy when unset or empty', () => {
    for (const value of [undefined, '', ' , ']) {
      const { trustedProxies } = config({ TRUSTED_PROXIES: value });
      expect(trustedProxies.entries).toEqual([]);
      expect(trustedProxies.trusts('127.0.0.1', 0)).toBe(false);
    }
  });

  it('reads addresses, CIDRs and proxy-addr names, comma-separated', () => {
    const { trustedProxies } = config({
      TRUSTED_PROXIES: ' loopback, 10.0.0.0/8 ,2001:db8::/32,203.0.113.9 ',
    });
    expect(trustedProxies.entries).toEqual([
      'loopback',
      '10.0.0.0/8',
      '2001:db8::/32',
      '203.0.113.9',
    ]);
    for (const address of ['::1', '127.0.0.1', '10.2.3.4', '2001:db8:5::1', '203.0.113.9']) {
      expect(trustedProxies.trusts(address, 0)).toBe(true);
    }
    expect(trustedProxies.trusts('203.0.113.10', 0)).toBe(false);
  });

  it('stops the server naming each entry it cannot read', () => {
    const result = parseServerEnv({ TRUSTED_PROXIES: 'loopback, nginx, 10.0.0.0/33' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toContain(
        'TRUSTED_PROXIES: "nginx", "10.0.0.0/33" are not an IP address, a CIDR (10.0.0.0/8) or one of loopback, linklocal, uniquelocal',
      );
    }
  });
});

describe('MONITORING_ALERT_WEBHOOK_URL and MONITORING_ALERT_SPIKE', () => {
  it('reads comma-separated http(s) hooks and the spike rule; none when unset', () => {
    expect(config({}).alertWebhookUrls).toEqual([]);
    const c = config({
      MONITORING_ALERT_WEBHOOK_URL:
        ' https://hooks.slack.com/services/T/B/X , http://127.0.0.1:9000/hook?token=t ',
      MONITORING_ALERT_SPIKE: '100/1h',
    });
    expect(c.alertWebhookUrls.map((url) => url.href)).toEqual([
      'https://hooks.slack.com/services/T/B/X',
      'http://127.0.0.1:9000/hook?token=t',
    ]);
    expect(c.alertSpike).toEqual({ count: 100, windowMs: 3_600_000, text: '100/1h' });
  });

  it.each([
    ['not a URL', 'MONITORING_ALERT_WEBHOOK_URL: entry 1 is not a URL'],
    [
      'ftp://files.example/secret-123',
      'entry 1 (files.example) must be an http:// or https:// URL',
    ],
    [
      'https://user:secret-123@hooks.example/x',
      'entry 1 (hooks.example) must not carry user:password@',
    ],
  ])('stops the server for %s, naming the entry by its host only', (value, words) => {
    const result = parseServerEnv({ MONITORING_ALERT_WEBHOOK_URL: value });
    expect(result.ok).toBe(false);
    const message = result.ok ? '' : result.message;
    expect(message).toContain(words);
    expect(message).not.toContain('secret-123');
  });

  it('stops the server for a spike rule it cannot read', () => {
    const result = parseServerEnv({ MONITORING_ALERT_SPIKE: '100 an hour' });
    expect(result.ok ? '' : result.message).toContain(
      'MONITORING_ALERT_SPIKE: must be COUNT/WINDOW with s, m, h or d (100/1h), got "100 an hour"',
    );
  });
});

describe('spotlightSidecarUrl', () => {
  it.each([
    ['', false],
    ['false', false],
    ['0', false],
    ['No', false],
    ['off', false],
    ['true', DEFAULT_SPOTLIGHT_URL],
    ['1', DEFAULT_SPOTLIGHT_URL],
    [' YES ', DEFAULT_SPOTLIGHT_URL],
    ['http://localhost:8969/stream', 'http://localhost:8969/stream'],
    // The sidecar's bare address, as it prints it, means its /stream.
    ['http://127.0.0.1:9000', 'http://127.0.0.1:9000/stream'],
    ['http://127.0.0.1:9000/', 'http://127.0.0.1:9000/stream'],
    ['https://spotlight.test/custom', 'https://spotlight.test/custom'],
  ])('%j is %j', (value, expected) => {
    expect(spotlightSidecarUrl(value)).toBe(expected);
  });

  it.each([['maybe'], ['localhost:8969'], ['ftp://localhost:8969/stream'], ['"true"']])(
    'refuses %j, showing the value',
    (value) => {
      expect(spotlightSidecarUrl(value)).toEqual({
        error: `must be true, false or the Spotlight sidecar's http:// URL, got "${value}"`,
      });
    },
  );
});
