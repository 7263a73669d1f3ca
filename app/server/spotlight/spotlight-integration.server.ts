/**
 * The server client's Spotlight integration: every envelope the client sends also goes to the
 * sidecar, whatever the transport does with it (Sentry or the local inbox). What @sentry/node's
 * `spotlightIntegration` and @sentry/browser's `spotlightBrowserIntegration` do, written here
 * because our server client is @sentry/core's (decision 0201) and @sentry/node would bring
 * OpenTelemetry with it. See docs/decisions/0930-spotlight-in-development.md.
 */
import { defineIntegration, type Envelope, serializeEnvelope } from '@sentry/core';

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
