/**
 * What `@sentry/vite-plugin` may do in a build: inject a debug ID into every client chunk and
 * its map, nothing else. It never uploads, creates a release or sends telemetry, even when
 * SENTRY_AUTH_TOKEN is in the build's environment (a CI job often exports it for every step):
 * the build needs neither the network nor a token, and maps go to Sentry in one place only,
 * `npm run sourcemaps:upload` (scripts/upload-source-maps.mjs).
 * Decisions: docs/decisions/0700-client-source-maps-and-debug-ids.md, 0702-*.md.
 */
import type { SentryVitePluginOptions } from '@sentry/vite-plugin';

export function sentryBuildOptions(): SentryVitePluginOptions {
  return {
    telemetry: false,
    sourcemaps: {
      // 'disable-upload' still injects debug IDs into chunks and maps.
      disable: 'disable-upload',
    },
    release: {
      // No name, so nothing is created with a token the plugin finds in SENTRY_AUTH_TOKEN, and
      // no name is read from git or SENTRY_RELEASE.
      name: '',
      // The release is the server's runtime setting (SENTRY_RELEASE), never baked into chunks.
      inject: false,
      create: false,
      finalize: false,
      setCommits: false,
      deploy: false,
    },
  };
}
