import { describe, expect, it } from 'vitest';
import { DEFAULT_SPOTLIGHT_URL, spotlightSidecarUrl } from '#app/server/spotlight.server';

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
