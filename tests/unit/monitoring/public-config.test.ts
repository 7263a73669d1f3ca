import { describe, expect, it } from 'vitest';
import { LOCAL_INBOX_DSN } from '../../../app/monitoring/local-dsn';
import { parsePublicConfig, serializeForScript } from '../../../app/monitoring/public-config';
import { publicConfigOf } from '../../../app/monitoring/public-config-of';

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

describe('parsePublicConfig', () => {
  const config = publicConfigOf(source);
  it.each([
    ['the serialized config', serializeForScript(config), config],
    ['no element', null, undefined],
    ['empty text', '', undefined],
    ['not JSON', '{oops', undefined],
    ['a rate above 1', serializeForScript({ ...config, tracesSampleRate: 2 }), undefined],
    ['a missing DSN', serializeForScript({ ...config, dsn: undefined }), undefined],
  ])('%s', (_name, text, expected) => {
    expect(parsePublicConfig(text)).toEqual(expected);
  });
});
