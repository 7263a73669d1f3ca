/**
 * Whether the SDK would send a report: not noise by the filters it is given (filters.ts, wired
 * in browser-options.ts as `ignoreErrors`, `denyUrls` and `beforeSend`). The app hands this rule
 * to the recorder when it starts: noise is neither kept (a ResizeObserver notice can come every
 * frame and would crowd the 64 places before a real error) nor a reason to load the SDK, and
 * never leaves by beacon.
 */
import type { ErrorEvent } from '@sentry/core';
import { isExtensionUrl, isNoiseEvent, isResizeObserverLoopNotice } from './filters';
import { minimalEvent } from './recorder/minimal-envelope';
import type { Recorded } from './recorder/recorder';

const NO_CONTEXT = { environment: '', release: '', userAgent: '', sdk: { name: '', version: '' } };

export function isWorthSending({ report, original }: Recorded): boolean {
  if (isResizeObserverLoopNotice(report.message)) return false;
  const event = minimalEvent(report, NO_CONTEXT);
  if (!('exception' in event)) return true;
  const innermost = event.exception.values[0]?.stacktrace?.frames.at(-1)?.filename;
  if (innermost && isExtensionUrl(innermost)) return false;
  // Only an error that was thrown here is known as thrown: one from an earlier page is facts.
  return !isNoiseEvent(event as unknown as ErrorEvent, { originalException: original });
}
