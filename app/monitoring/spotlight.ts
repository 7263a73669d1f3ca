/**
 * The browser's part of Spotlight (development only, SENTRY_SPOTLIGHT): the SDK's own
 * integration, which posts a copy of every envelope to the sidecar. The server puts the
 * sidecar's URL into the public config only when Spotlight is on, never in production.
 * Imported lazily, so that pages without it load none of it (the integration needs a module of
 * the tracing chunk); envelopes sent before it arrives are not copied.
 * See docs/decisions/0930-spotlight-in-development.md.
 */
import { addIntegration, spotlightBrowserIntegration } from '@sentry/react';
import type { PublicConfig } from './public-config';

/** Adds the integration to the running client when the config names a sidecar. */
export function startSpotlight(config: PublicConfig): void {
  if (config.spotlight)
    addIntegration(spotlightBrowserIntegration({ sidecarUrl: config.spotlight }));
}
