/**
 * The browser's part of Spotlight (development only, SENTRY_SPOTLIGHT): the SDK's own
 * integration, which posts a copy of every envelope to the sidecar. The server puts the
 * sidecar's URL into the public config only when Spotlight is on, never in production.
 * Loaded only when the config names a sidecar, and started with the SDK (sdk-loader.ts), before
 * the recorder's reports are replayed, so those are copied too.
 * See docs/decisions/0930-spotlight-in-development.md.
 */
import { addIntegration, spotlightBrowserIntegration } from '@sentry/browser';
import type { PublicConfig } from '#app/site-config';

/** Adds the integration to the running client when the config names a sidecar. */
export function startSpotlight(config: PublicConfig): void {
  if (config.spotlight)
    addIntegration(spotlightBrowserIntegration({ sidecarUrl: config.spotlight }));
}
