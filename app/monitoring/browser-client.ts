/**
 * Starts the browser's Sentry client from `BrowserClient` and a chosen list of integrations,
 * instead of `Sentry.init`, which always references all of the SDK's default integrations
 * (and so bundles them). Otherwise what `@sentry/react`'s `init` does (11.12): the `react` SDK
 * name and context, the browser's value normaliser, the client bound to the current scope.
 * Which integrations, and why the others are left out: docs/decisions/0910-*.md.
 */
import {
  BrowserClient,
  type BrowserOptions,
  breadcrumbsIntegration,
  browserApiErrorsIntegration,
  consoleIntegration,
  dedupeIntegration,
  functionToStringIntegration,
  globalHandlersIntegration,
  httpContextIntegration,
  linkedErrorsIntegration,
  normalizeStringifyValue,
  setContext,
} from '@sentry/browser';
import {
  applySdkMetadata,
  type Integration,
  initAndBind,
  type StackParser,
  setNormalizeStringifier,
} from '@sentry/core';
import { version as reactVersion } from 'react';
import { adoptedSessionIntegration } from './adopted-session';
import type { PageSession } from './page-session';
import { eventFiltersReportingDetailedScriptErrors } from './script-error-filter';

/** What the client needs beyond `BrowserOptions`: browser-options.ts always gives both. */
type StartOptions = BrowserOptions & {
  stackParser: StackParser;
  transport: NonNullable<BrowserOptions['transport']>;
  // A URL, never the SDK's managed tunnel (`true`), which `init` would have resolved here.
  tunnel: string;
};

/**
 * The integrations the client starts with; tracing is added later, when the page view is traced
 * (tracing.ts).
 */
export function errorIntegrations(session: PageSession): Integration[] {
  return [
    // `ignoreErrors` and `denyUrls` (filters.ts's patterns) are applied by this one; unlike the
    // SDK's own, it lets a "Script error." with a stack or a line through.
    eventFiltersReportingDetailedScriptErrors(),
    // window.onerror and unhandledrejection: the errors nobody caught.
    globalHandlersIntegration(),
    // Errors in timer, animation-frame and event-listener callbacks, caught where they are
    // thrown (with the original error even where window.onerror would only see "Script error.");
    // functionToString keeps the wrapped callbacks' source readable.
    browserApiErrorsIntegration(),
    functionToStringIntegration(),
    // `error.cause` chains, as one event.
    linkedErrorsIntegration(),
    // The same error twice in a row (a rethrow seen by two handlers) is one event.
    dedupeIntegration(),
    // The page's URL, user agent and referrer on every event.
    httpContextIntegration(),
    // What happened before the error: clicks, key presses, fetch/XHR, navigations, console.
    breadcrumbsIntegration(),
    consoleIntegration(),
    // A session per page load, for Sentry's release health (crash-free sessions): the one the
    // page started before the SDK came.
    adoptedSessionIntegration(session),
  ];
}

export function startBrowserClient(options: StartOptions, session: PageSession): void {
  const clientOptions: ConstructorParameters<typeof BrowserClient>[0] = {
    ...options,
    integrations: errorIntegrations(session),
  };
  applySdkMetadata(clientOptions, 'react');
  setContext('react', { version: reactVersion });
  setNormalizeStringifier(normalizeStringifyValue);
  initAndBind(BrowserClient, clientOptions);
}
