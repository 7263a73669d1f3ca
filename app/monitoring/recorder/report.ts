/**
 * A report as the recorder keeps it (the facts of one error, with its id and time), and the SDK
 * metadata it is sent with.
 */
import { SDK_VERSION } from '@sentry/core';
import { MAX_MESSAGE_CHARS } from '../in-app';

/**
 * What the recorder keeps of one report: plain facts, JSON that survives a reload, never a
 * Sentry event. The SDK makes the event from them with its own code (app/monitoring/sdk-loader.ts);
 * only when a report must leave without the SDK does minimal-envelope.ts write one by hand.
 * Part of the inline recorder (recorder.ts): no imports beyond this folder, a few hundred bytes.
 */

/** How the SDK marks what a handler caught (`Mechanism` in @sentry/core). */
export interface ReportMechanism {
  type: string;
  handled: boolean;
}

/** `captureMessage`'s context, as the CSP listener fills it. */
export interface MessageContext {
  level: 'warning' | 'error' | 'info';
  tags?: Record<string, string>;
  extra?: Record<string, unknown>;
}

/**
 * - `error`: uncaught (window `error`); `rejection`: an unhandled rejection;
 * - `asset`: one of our own scripts failed to load (the page is likely dead);
 * - `exception`: caught and reported by the app (the error boundary); `message`: a message (CSP).
 */
export type ReportKind = 'error' | 'rejection' | 'asset' | 'exception' | 'message';

export interface Report {
  /** The id its event has, wherever it is built: what makes "sent once" checkable. */
  id: string;
  kind: ReportKind;
  /** Seconds since the epoch, when it happened (Sentry's event timestamp). */
  at: number;
  /** The page it happened on. */
  url: string;
  /** The thrown Error's name, when an Error was thrown. */
  name?: string;
  message: string;
  stack?: string;
  /** Where the browser says it happened (an `error` event), or the asset that failed. */
  filename?: string;
  lineno?: number;
  colno?: number;
  mechanism?: ReportMechanism;
  level?: MessageContext['level'];
  tags?: Record<string, string>;
  extra?: Record<string, unknown>;
}

/** How the SDK marks uncaught errors and rejections (its globalHandlers integration). */
export const ONERROR = 'auto.browser.global_handlers.onerror';
export const ONUNHANDLEDREJECTION = 'auto.browser.global_handlers.onunhandledrejection';
/** Ours: a script of the app that did not load. */
export const ASSET_ERROR = 'auto.browser.recorder.asset';
/** The name a failed chunk's report carries, as webpack's and the SDK's grouping know it. */
export const CHUNK_LOAD_ERROR = 'ChunkLoadError';

/** Long messages and stacks are cut: a report is stored, and a stored report has a size bound. */
const MAX_STACK = 16_384;

/** The facts of a thrown value: an Error's name, message and stack, or the value as text. */
export function thrownFacts(thrown: unknown): Pick<Report, 'name' | 'message' | 'stack'> {
  if (thrown instanceof Error) {
    return {
      name: thrown.name,
      message: String(thrown.message).slice(0, MAX_MESSAGE_CHARS),
      ...(typeof thrown.stack === 'string' ? { stack: thrown.stack.slice(0, MAX_STACK) } : {}),
    };
  }
  let text: string;
  try {
    text = typeof thrown === 'string' ? thrown : (JSON.stringify(thrown) ?? String(thrown));
  } catch {
    text = String(thrown);
  }
  return { message: text.slice(0, MAX_MESSAGE_CHARS) };
}

/** Sentry's event id: 32 lowercase hex digits (crypto.randomUUID needs a secure context). */
export function randomEventId(): string {
  let id = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
    id += (byte + 256).toString(16).slice(1);
  }
  return id;
}

/** The script an asset error names, when it is one of ours: a script under `/_build/`. */
export function ownScriptOf(target: EventTarget | null, origin: string): string | undefined {
  const element = target as { tagName?: string; src?: string; href?: string; rel?: string } | null;
  const url =
    element?.tagName === 'SCRIPT'
      ? element.src
      : element?.tagName === 'LINK' && element.rel === 'modulepreload'
        ? element.href
        : undefined;
  return url?.startsWith(`${origin}/_build/`) ? url : undefined;
}

/**
 * The SDK's name and version as its envelopes carry them (`applySdkMetadata(options, 'react')`),
 * for the envelopes written without it. Only the inline recorder imports this: in the app's
 * bundle, any import of @sentry/core would load the SDK's chunk before hydration
 * (build/client-chunks.ts); the app reads it from the recorder instead.
 */
export interface SdkMetadata {
  name: string;
  version: string;
}

export const SDK_METADATA: SdkMetadata = { name: 'sentry.javascript.react', version: SDK_VERSION };
