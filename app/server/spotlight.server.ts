/**
 * SENTRY_SPOTLIGHT in development: the sidecar's URL, and a copy of each server event sent to it
 * (decision 0930).
 */
import { defineIntegration, type Envelope, envToBool, serializeEnvelope } from '@sentry/core';

/**
 * The server client's Spotlight integration: every envelope the client sends also goes to the
 * sidecar, whatever the transport does with it (Sentry or the local inbox). What @sentry/node's
 * `spotlightIntegration` and @sentry/browser's `spotlightBrowserIntegration` do, written here
 * because our server client is @sentry/core's (decision 0201) and @sentry/node would bring
 * OpenTelemetry with it. See docs/decisions/0930-spotlight-in-development.md.
 */
/** After this many failures in a row the sidecar is taken to be gone (as the SDKs do). */
const MAX_FAILURES = 3;

/** A sidecar that takes longer than this counts as a failure: a hung one must not pile up requests. */
const SIDECAR_TIMEOUT_MS = 5_000;

export const spotlightIntegration = defineIntegration((sidecarUrl: string) => ({
  // The SDKs' name: core's client sets up integrations named Spotlight* even without a DSN.
  name: 'Spotlight',
  setup(client) {
    let failures = 0;
    const warnOnce = onlyOnce((reason: unknown) =>
      console.warn(
        `[monitoring] Spotlight: could not send to ${sidecarUrl} (is \`npm run spotlight\` running?): ${reason instanceof Error ? reason.message : String(reason)}`,
      ),
    );
    client.on('beforeEnvelope', (envelope: Envelope) => {
      if (failures >= MAX_FAILURES) return;
      fetch(sidecarUrl, {
        method: 'POST',
        body: serializeEnvelope(envelope) as BodyInit,
        headers: { 'Content-Type': 'application/x-sentry-envelope' },
        signal: AbortSignal.timeout(SIDECAR_TIMEOUT_MS),
      }).then(
        async (response) => {
          // Drain the body so the connection can be reused.
          await response.arrayBuffer().catch(() => undefined);
          if (response.ok) failures = 0;
          else warnOnce(`HTTP ${response.status}`);
        },
        (error: unknown) => {
          failures += 1;
          warnOnce(error);
        },
      );
    });
  },
}));

function onlyOnce<T>(action: (value: T) => void): (value: T) => void {
  let done = false;
  return (value) => {
    if (done) return;
    done = true;
    action(value);
  };
}

/**
 * How the Sentry SDKs read SENTRY_SPOTLIGHT (@sentry/node's `spotlight` option from the
 * environment): unset or a false flag is off, a true flag is the sidecar on its default port,
 * anything else is the sidecar's URL. Pure, so the env schema and its tests share it.
 */
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
