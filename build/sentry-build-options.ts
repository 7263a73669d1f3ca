/**
 * What `@sentry/vite-plugin` may do in a build. It always injects a debug ID into every client
 * chunk and its map (no account or network needed). Everything that talks to Sentry, uploading
 * maps and creating a release, happens only when the build has `SENTRY_AUTH_TOKEN`; telemetry
 * about the build itself is never sent.
 * Decision: docs/decisions/0700-client-source-maps-and-debug-ids.md.
 */
import type { SentryVitePluginOptions } from '@sentry/vite-plugin';

export function sentryBuildOptions(
  env: Record<string, string | undefined>,
): SentryVitePluginOptions {
  const authToken = env.SENTRY_AUTH_TOKEN || undefined;
  return {
    authToken,
    telemetry: false,
    sourcemaps: {
      // 'disable-upload' still injects debug IDs into chunks and maps.
      disable: authToken ? false : 'disable-upload',
    },
    release: {
      // No name without a token: the plugin would read one from git only to warn that it
      // cannot create that release.
      name: authToken ? undefined : '',
      // The release is the server's runtime setting (SENTRY_RELEASE), never baked into chunks.
      inject: false,
      create: Boolean(authToken),
      finalize: Boolean(authToken),
      setCommits: false,
      deploy: false,
    },
  };
}
