import { describe, expect, it } from 'vitest';
import { sentryBuildOptions } from '../../../build/sentry-build-options';

describe('sentryBuildOptions', () => {
  it.each([
    ['no token', {}],
    ['an empty token', { SENTRY_AUTH_TOKEN: '' }],
  ])('with %s: debug IDs only, nothing sent, nothing created', (_case, env) => {
    const options = sentryBuildOptions(env);
    expect(options.authToken).toBeUndefined();
    expect(options.telemetry).toBe(false);
    expect(options.sourcemaps?.disable).toBe('disable-upload');
    expect(options.release).toMatchObject({
      name: '',
      inject: false,
      create: false,
      finalize: false,
      setCommits: false,
      deploy: false,
    });
  });

  it('with a token: uploads and creates the release, still no telemetry or injected release', () => {
    const options = sentryBuildOptions({ SENTRY_AUTH_TOKEN: 'sntrys_x' });
    expect(options.authToken).toBe('sntrys_x');
    expect(options.telemetry).toBe(false);
    expect(options.sourcemaps?.disable).toBe(false);
    expect(options.release).toMatchObject({ name: undefined, inject: false, create: true });
  });
});
