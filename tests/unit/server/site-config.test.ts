import { describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/filters';
import { parseServerEnv } from '#app/server/env.server';
import { siteConfigOf } from '#app/server/site-config.server';
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
