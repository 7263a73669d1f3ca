/**
 * How the Sentry SDKs read SENTRY_SPOTLIGHT (@sentry/node's `spotlight` option from the
 * environment): unset or a false flag is off, a true flag is the sidecar on its default port,
 * anything else is the sidecar's URL. Pure, so the env schema and its tests share it.
 */
import { envToBool } from '@sentry/core';

/** Where `npm run spotlight` (the sidecar's own default) receives envelopes. */
export const DEFAULT_SPOTLIGHT_URL = 'http://localhost:8969/stream';

/** The URL to POST envelopes to, false when off, or why the value is not one. */
export function spotlightSidecarUrl(value: string): string | false | { error: string } {
  // The SDKs' own flag spellings: true, t, y, yes, on, 1 and their opposites.
  const flag = value.trim() === '' ? false : envToBool(value.trim(), { strict: true });
  if (flag === false) return false;
  if (flag === true) return DEFAULT_SPOTLIGHT_URL;
  const invalid = {
    error: `must be true, false or the Spotlight sidecar's http:// URL, got "${value}"`,
  };
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return invalid;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return invalid;
  // The sidecar takes envelopes on /stream: its bare address (as `spotlight` prints it) means that.
  if (url.pathname === '/') url.pathname = '/stream';
  return url.href;
}
