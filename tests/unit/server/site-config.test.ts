/**
 * The process's site config, then the monitoring mode's DSNs and start lines.
 */
import { describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { parseServerEnv, type ServerConfig } from '#app/server/env.server';
import {
  describeInboxAccess,
  describeMonitoring,
  describeSpotlight,
  describeTrustedProxies,
  localInboxDsnOf,
  reportingDsn,
  siteConfigOf,
} from '#app/server/site-config.server';
import {
  parseSiteConfig,
  publicConfigOf,
  type SiteConfig,
  serializeForScript,
} from '#app/site-config';

function configOf(env: Record<string, string>) {
  const result = parseServerEnv(env);
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

describe('siteConfigOf', () => {
  it('links the inbox in local inbox mode, and the example page only when examples are on', () => {
    const site = siteConfigOf(configOf({ NODE_ENV: 'production', ENABLE_EXAMPLE_ROUTES: '1' }));
    expect(site.links).toEqual({ errorInbox: true, examplePage: true });
    expect(site.monitoring.dsn).toBe(LOCAL_INBOX_DSN);
  });

  it('links no inbox when reporting to Sentry, and reports to that DSN through its tunnel', () => {
    const dsn = 'https://abc@o123.ingest.us.sentry.io/456';
    const site = siteConfigOf(configOf({ NODE_ENV: 'production', SENTRY_DSN: dsn }));
    expect(site.links).toEqual({ errorInbox: false, examplePage: false });
    expect(site.monitoring).toMatchObject({ dsn, tunnel: '/monitoring?o=123&p=456&r=us' });
  });
});

describe('siteConfigOf and Spotlight', () => {
  it('tells the browser the sidecar in development with SENTRY_SPOTLIGHT', () => {
    const site = siteConfigOf(configOf({ NODE_ENV: 'development', SENTRY_SPOTLIGHT: '1' }));
    expect(site.monitoring.spotlight).toBe('http://localhost:8969/stream');
  });

  it.each([
    [{ NODE_ENV: 'development' }],
    [{ NODE_ENV: 'production', SENTRY_SPOTLIGHT: 'http://localhost:8969/stream' }],
  ])('tells the browser no sidecar with %j', (env) => {
    const site = siteConfigOf(configOf(env));
    expect(site.monitoring).not.toHaveProperty('spotlight');
    expect(serializeForScript(site)).not.toContain('8969');
  });
});

describe('serializeForScript', () => {
  it.each([['</script><script>alert(1)</script>'], ['<!-- comment'], ['a < b']])(
    'escapes < in %s, and JSON.parse reads it back',
    (value) => {
      const text = serializeForScript({ release: value });
      expect(text).not.toContain('<');
      expect(JSON.parse(text)).toEqual({ release: value });
    },
  );
});

describe('parseSiteConfig', () => {
  const config: SiteConfig = {
    monitoring: publicConfigOf({
      dsn: 'https://abc@o123.ingest.us.sentry.io/456',
      environment: 'production',
      release: 'app@1.0.0',
      tracesSampleRate: 0.1,
    }),
    links: { errorInbox: false, examplePage: true },
  };
  const withMonitoring = (change: object) =>
    serializeForScript({ ...config, monitoring: { ...config.monitoring, ...change } });
  it.each([
    ['the serialized config', serializeForScript(config), config],
    ['no element', null, undefined],
    ['empty text', '', undefined],
    ['not JSON', '{oops', undefined],
    ['a rate above 1', withMonitoring({ tracesSampleRate: 2 }), undefined],
    ['a missing DSN', withMonitoring({ dsn: undefined }), undefined],
    ['no links', serializeForScript({ monitoring: config.monitoring }), undefined],
  ])('%s', (_name, text, expected) => {
    expect(parseSiteConfig(text)).toEqual(expected);
  });
});

function config(env: Record<string, string | undefined>): ServerConfig {
  const result = parseServerEnv(env);
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

describe('the start line', () => {
  it.each([
    {
      env: {},
      line: 'local inbox mode (no SENTRY_DSN): errors are kept in /srv/app/.data/inbox; read them at http://localhost:3000/errors',
    },
    {
      env: { MONITORING_INBOX_DIR: '/var/inbox', HOST: '127.0.0.1', PORT: '8080' },
      line: 'local inbox mode (no SENTRY_DSN): errors are kept in /var/inbox; read them at http://127.0.0.1:8080/errors',
    },
    {
      env: { PORT: '0' },
      line: 'local inbox mode (no SENTRY_DSN): errors are kept in /srv/app/.data/inbox; read them at /errors',
    },
    {
      env: { SENTRY_DSN: 'https://key@o123.ingest.us.sentry.io/456' },
      line: 'errors go to Sentry project 456 (organisation 123, region us) at o123.ingest.us.sentry.io',
    },
    {
      env: { SENTRY_DSN: 'https://key@o7.ingest.sentry.io/9' },
      line: 'errors go to Sentry project 9 (organisation 7) at o7.ingest.sentry.io',
    },
    {
      // Self-hosted: the host names no organisation, so the line names none (not "organisation 0").
      env: { SENTRY_DSN: 'https://key@sentry.example.com/5' },
      line: 'errors go to Sentry project 5 at sentry.example.com',
    },
  ])('says $line', ({ env, line }) => {
    expect(describeMonitoring(config(env), undefined, '/srv/app')).toBe(line);
  });
});

describe('the Spotlight start line', () => {
  it.each([
    [{ NODE_ENV: 'development' }, undefined],
    [
      { NODE_ENV: 'development', SENTRY_SPOTLIGHT: 'true' },
      'Spotlight: server and browser events also go to http://localhost:8969/stream',
    ],
    [
      { NODE_ENV: 'production', SENTRY_SPOTLIGHT: 'true' },
      'SENTRY_SPOTLIGHT is ignored in production (NODE_ENV=production): Spotlight is for development',
    ],
  ])('with %j is %j', (env, line) => {
    expect(describeSpotlight(config(env))).toBe(line);
  });
});

describe('which DSN events are sent with, and which one is stored locally', () => {
  const sentry = 'https://key@o1.ingest.us.sentry.io/2';
  it.each([
    [{}, LOCAL_INBOX_DSN, LOCAL_INBOX_DSN],
    // In Sentry mode nothing is stored locally, even for an allowed DSN equal to the local one.
    [{ SENTRY_DSN: sentry, SENTRY_TUNNEL_ALLOWED_DSNS: LOCAL_INBOX_DSN }, sentry, undefined],
  ])('%o', (env, reporting, local) => {
    expect(reportingDsn(config(env))).toBe(reporting);
    expect(localInboxDsnOf(config(env))).toBe(local);
  });
});

describe('the start line about /errors', () => {
  const TOKEN = 'Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmE';
  const made = (env: Record<string, string>) => {
    const result = parseServerEnv(env, () => TOKEN);
    if (!result.ok) throw new Error(result.message);
    return result.config;
  };

  it.each([
    [
      { NODE_ENV: 'development' },
      '/errors is open to anyone who can reach this server (development)',
    ],
    [
      {},
      `/errors is open to visitors who sign in; one-click sign-in: http://localhost:3000/errors/sign-in#token=${TOKEN} (a token made for this run; set MONITORING_INBOX_TOKEN to keep one)`,
    ],
    [
      { HOST: '127.0.0.1', MONITORING_INBOX_TRUST_LOOPBACK: 'true' },
      `/errors is open to requests from this machine (MONITORING_INBOX_TRUST_LOOPBACK: no proxy in front) and to visitors who sign in; one-click sign-in: http://127.0.0.1:3000/errors/sign-in#token=${TOKEN} (a token made for this run; set MONITORING_INBOX_TOKEN to keep one)`,
    ],
    [
      { MONITORING_INBOX_TOKEN: 'a-token-of-20-chars' },
      '/errors is open to visitors who sign in with MONITORING_INBOX_TOKEN',
    ],
    [
      {
        MONITORING_INBOX_TOKEN: 'a-token-of-20-chars',
        MONITORING_INBOX_TRUST_LOOPBACK: 'true',
        TRUSTED_PROXIES: 'loopback',
      },
      '/errors is open to requests from this machine but not from TRUSTED_PROXIES, which names loopback (MONITORING_INBOX_TRUST_LOOPBACK), and to visitors who sign in with MONITORING_INBOX_TOKEN',
    ],
    [{ SENTRY_DSN: 'https://key@o1.ingest.sentry.io/2' }, undefined],
  ])('with %j: %j', (env, line) => {
    expect(describeInboxAccess(made(env))).toBe(line);
  });

  it('says whose X-Forwarded-For is read, only when TRUSTED_PROXIES is set', () => {
    expect(describeTrustedProxies(made({}))).toBeUndefined();
    expect(describeTrustedProxies(made({ TRUSTED_PROXIES: 'loopback,10.0.0.0/8' }))).toBe(
      'clients behind loopback, 10.0.0.0/8 (TRUSTED_PROXIES) are read from X-Forwarded-For (else Forwarded)',
    );
  });

  it('names the port the server listens on, and never prints a set token', () => {
    expect(describeInboxAccess(made({ PORT: '0' }), 41234)).toContain(
      'http://localhost:41234/errors/sign-in#token=',
    );
    const line = describeInboxAccess(made({ MONITORING_INBOX_TOKEN: 'a-token-of-20-chars' }));
    expect(line).not.toContain('a-token-of-20-chars');
  });
});
