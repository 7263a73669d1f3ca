/**
 * The browser's part of Spotlight (development only, SENTRY_SPOTLIGHT): the SDK's own
 * integration, which posts a copy of every envelope to the sidecar. The server puts the
 * sidecar's URL into the public config only when Spotlight is on, never in production
 * (docs/decisions/0930-spotlight-in-development.md).
 */
import type { Integration } from '@sentry/core';
import { spotlightBrowserIntegration } from '@sentry/react';
import type { PublicConfig } from './public-config';

/** The integration to add after Sentry.init, or none. */
export function spotlightIntegrations(config: PublicConfig): Integration[] {
  return config.spotlight ? [spotlightBrowserIntegration({ sidecarUrl: config.spotlight })] : [];
}
