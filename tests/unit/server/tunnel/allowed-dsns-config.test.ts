import { describe, expect, it } from 'vitest';
import { formatDsn, LOCAL_INBOX_DSN } from '#app/monitoring/dsn';
import { parseServerEnv } from '#app/server/env.server';

const allowed = (env: Record<string, string>) => {
  const result = parseServerEnv(env);
  if (!result.ok) throw new Error(result.message);
  return result.config.tunnelAllowedDsns.map(formatDsn);
};

describe('the tunnel allow-list from the environment', () => {
  it.each([
    [{}, [LOCAL_INBOX_DSN]],
    [
      { SENTRY_TUNNEL_ALLOWED_DSNS: 'https://b@o2.ingest.sentry.io/3' },
      [LOCAL_INBOX_DSN, 'https://b@o2.ingest.sentry.io/3'],
    ],
    [{ SENTRY_DSN: 'https://a@o1.ingest.sentry.io/2' }, ['https://a@o1.ingest.sentry.io/2']],
    [
      {
        SENTRY_DSN: 'https://a@o1.ingest.sentry.io/2',
        SENTRY_TUNNEL_ALLOWED_DSNS: 'https://b@o2.ingest.sentry.io/3, http://c@localhost:9000/4',
      },
      [
        'https://a@o1.ingest.sentry.io/2',
        'https://b@o2.ingest.sentry.io/3',
        'http://c@localhost:9000/4',
      ],
    ],
  ])('%j -> %j', (env, expected) => {
    expect(allowed(env)).toEqual(expected);
  });

  it.each([
    ['', false],
    ['tunnel', true],
    ['vite,tunnel', true],
    ['tunnels', false],
  ])('DEBUG=%j turns tunnel debugging %s', (DEBUG, expected) => {
    const result = parseServerEnv({ DEBUG });
    // A parse failure must fail the test, not pass the rows that expect false.
    if (!result.ok) throw new Error(result.message);
    expect(result.config.tunnelDebug).toBe(expected);
  });
});
