/**
 * The SDK's name and version as its envelopes carry them (`applySdkMetadata(options, 'react')`),
 * for the envelopes written without it. Only the inline recorder imports this: in the app's
 * bundle, any import of @sentry/core would load the SDK's chunk before hydration
 * (build/client-chunks.ts); the app reads it from the recorder instead.
 */
import { SDK_VERSION } from '@sentry/core';

export interface SdkMetadata {
  name: string;
  version: string;
}

export const SDK_METADATA: SdkMetadata = { name: 'sentry.javascript.react', version: SDK_VERSION };
