import { describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '#app/monitoring/filters';
import { publicConfigOf } from '#app/site-config';

const source = {
  dsn: 'https://abc@o123.ingest.us.sentry.io/456',
  environment: 'production',
  release: 'app@1.0.0',
  tracesSampleRate: 0.1,
};

describe('publicConfigOf', () => {
  it('hands the browser exactly the DSN, its tunnel URL, environment, release and rate', () => {
    expect(publicConfigOf(source)).toEqual({
      dsn: 'https://abc@o123.ingest.us.sentry.io/456',
      tunnel: '/monitoring?o=123&p=456&r=us',
      environment: 'production',
      release: 'app@1.0.0',
      tracesSampleRate: 0.1,
    });
  });

  it('gives the local inbox DSN its tunnel URL', () => {
    expect(publicConfigOf({ ...source, dsn: LOCAL_INBOX_DSN }).tunnel).toBe('/monitoring?o=0&p=1');
  });

  it('refuses a DSN that does not parse', () => {
    expect(() => publicConfigOf({ ...source, dsn: 'nope' })).toThrow(/DSN/);
  });
});
