import { describe, expect, it } from 'vitest';
import { sentryBuildOptions } from '../../../build/sentry-build-options';

describe('sentryBuildOptions', () => {
  it('injects debug IDs only: no upload, no release, no telemetry', () => {
    const options = sentryBuildOptions();
    expect(options.telemetry).toBe(false);
    expect(options.sourcemaps?.disable).toBe('disable-upload');
    expect(options.release).toEqual({
      name: '',
      inject: false,
      create: false,
      finalize: false,
      setCommits: false,
      deploy: false,
    });
  });
});
