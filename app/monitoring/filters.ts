/**
 * Browser noise: what the SDK must not report, each rule a pure predicate over Sentry's event
 * types (or the pattern list a predicate is made of) so it can be tested without a browser:
 * opaque "Script error.", ResizeObserver notices, extension frames, the router's redirects and
 * not-found (control flow), errors on the local inbox's own pages, and unwanted router segments.
 * `browserOptions` (sdk-loader.ts) wires them into the SDK's own options;
 * docs/decisions/0400-browser-noise-filters.md says why.
 */
import type { ClientOptions, ErrorEvent, EventHint, StackFrame } from '@sentry/core';
import { isNotFound, isRedirect } from '@tanstack/react-router';
import { LOCAL_INBOX_DSN } from './dsn';

// --- "Script error." -------------------------------------------------------------------------

const SCRIPT_ERROR = /^Script error\.?$/;

/**
 * The browser's opaque "Script error." for an error in a cross-origin script: no message, no
 * stack, no location. Noise: dropped.
 */
export function isOpaqueScriptError(event: ErrorEvent, hint: EventHint = {}): boolean {
  return isScriptError(event) && !hasScriptErrorDetail(event, hint);
}

/**
 * A "Script error." that says where it happened: reported like any error, although the SDK's
 * default inbound filter drops every "Script error." (sdk-loader.ts's `eventFiltersReportingDetailedScriptErrors` lets it through).
 */
export function isDetailedScriptError(event: ErrorEvent, hint: EventHint = {}): boolean {
  return isScriptError(event) && hasScriptErrorDetail(event, hint);
}

function isScriptError(event: ErrorEvent): boolean {
  return messagesOf(event).some((message) => SCRIPT_ERROR.test(message));
}

/**
 * Detail: an Error object with a stack behind the event, or a frame with a line number. A file
 * name alone is not: the SDK fills in the page URL as the file name of an error that has none
 * (the browser's muted "Script error." has an empty one), and the browser reports line 0.
 */
function hasScriptErrorDetail(event: ErrorEvent, hint: EventHint): boolean {
  return hasStack(hint.originalException) || framesOf(event).some((frame) => !!frame.lineno);
}

// --- ResizeObserver ----------------------------------------------------------------------------

/**
 * Chrome's and Firefox's notices that a ResizeObserver callback changed layout again within a
 * frame. Harmless, and very frequent. The SDK's defaults drop only the second one.
 */
export const RESIZE_OBSERVER_LOOP_NOTICES: RegExp[] = [
  /^ResizeObserver loop limit exceeded$/,
  /^ResizeObserver loop completed with undelivered notifications\.?$/,
];

/** Wired as `ignoreErrors`, which matches the message and the exception's value. */
export function isResizeObserverLoopNotice(message: string): boolean {
  return RESIZE_OBSERVER_LOOP_NOTICES.some((pattern) => pattern.test(message));
}

// --- Browser extensions ------------------------------------------------------------------------

/** Scripts that browser extensions (or the browser itself) inject into the page. */
export const EXTENSION_URLS: RegExp[] = [
  /^chrome-extension:\/\//i,
  /^moz-extension:\/\//i,
  /^safari-extension:\/\//i,
  /^safari-web-extension:\/\//i,
  /^chrome:\/\//i,
];

/**
 * Wired as `denyUrls`, which the SDK tests against the URL of the frame the error was thrown
 * in (the innermost frame with a file name). An app error that merely passes through an
 * extension's wrapper further down the stack is still reported.
 */
export function isExtensionUrl(url: string): boolean {
  return EXTENSION_URLS.some((pattern) => pattern.test(url));
}

// --- The router's control flow ----------------------------------------------------------------

/**
 * `throw redirect(...)` and `throw notFound()` are how TanStack Router changes course, not
 * failures. The router handles them in loaders and `beforeLoad`; when one escapes anyway (an
 * event handler, a promise nobody awaited) it reaches the SDK as the original exception, or
 * as the cause of an error that wraps it.
 */
export function isRouterControlFlow(value: unknown): boolean {
  if (isRedirect(value) || isNotFound(value)) return true;
  const cause = typeof value === 'object' && value !== null ? Reflect.get(value, 'cause') : null;
  return isRedirect(cause) || isNotFound(cause);
}

/** The `beforeSend` rules: the ones that need the event's structure or the original exception. */
export function isNoiseEvent(event: ErrorEvent, hint: EventHint = {}): boolean {
  return isOpaqueScriptError(event, hint) || isRouterControlFlow(hint.originalException);
}

// --- The local inbox's own pages --------------------------------------------------------------

/**
 * Whether the page is one of the local inbox's own (/errors and below). Those pages are the
 * operator's, not the app's users': an error on one would be stored in the very inbox that
 * failed to show, and shown, failing again, on the next view (each view adds one more), so it
 * stays in the browser console; and a view of one starts no release-health session
 * (start-browser-monitoring.ts, decision 1131). With Sentry there is no /errors page.
 */
export function isLocalInboxPage(dsn: string, pageUrl: string | undefined): boolean {
  if (dsn !== LOCAL_INBOX_DSN || !pageUrl) return false;
  let path: string;
  try {
    path = new URL(pageUrl).pathname.toLowerCase();
  } catch {
    return false;
  }
  return path === '/errors' || path.startsWith('/errors/');
}

// --- Segments (traces) -------------------------------------------------------------------------

/**
 * With span streaming (the SDK 11 default) a trace is a segment span and its children; the
 * TanStack Router integration names a page load or navigation segment after the route it
 * matched when it starts. When no route matches (the not-found page) it keeps the SDK's
 * fallback name, `Pageload` or `Navigation`, and only the raw URL as attributes. `ignoreSpans`
 * is checked when a span starts, so these are never recorded at all.
 */
export const NOT_FOUND_SEGMENTS: IgnoreSpanFilter[] = [
  { name: /^Pageload$/, op: /^pageload$/ },
  { name: /^Navigation$/, op: /^navigation$/ },
];

/** A finished segment as the SDK sends it: its name, op and attribute values. */
export interface SegmentSummary {
  name: string;
  op?: string;
  attributes: Record<string, unknown>;
}

export const ROUTER_SEGMENT_OPS = ['pageload', 'navigation'];
export const IDLE_FINISH_REASON = 'sentry.idle_span_finish_reason';
/** How a page load or navigation segment ends when the page settled: nothing else is complete. */
export const SETTLED_FINISH_REASONS = ['idleTimeout', 'reportPageLoaded'];

/**
 * Incomplete: a page load or navigation segment that ended before the page settled, so its
 * duration and children describe a fragment of the work, not the route. Precisely, its idle
 * span finish reason is anything but `idleTimeout` / `reportPageLoaded`:
 * - `cancelled`: a new navigation started before this one settled (a quick click during load);
 * - `finalTimeout`: still busy after the SDK's 30 s cap;
 * - `heartbeatFailed`: child spans never finished;
 * - `documentHidden`: the tab was hidden mid-load;
 * - `externalFinish` or none: ended by code, not by the page going idle.
 * A segment that still carries the fallback name (`Pageload`/`Navigation`: no route was ever
 * matched) is incomplete too, whatever its finish reason: it names a raw URL, not a route.
 */
export function isIncompleteRouterSegment(segment: SegmentSummary): boolean {
  if (!segment.op || !ROUTER_SEGMENT_OPS.includes(segment.op)) return false;
  if (segment.name === 'Pageload' || segment.name === 'Navigation') return true;
  const reason = segment.attributes[IDLE_FINISH_REASON];
  return typeof reason !== 'string' || !SETTLED_FINISH_REASONS.includes(reason);
}

/** Marked by tracing.ts's `dropSegmentsIntegration` on a router segment that ended on the not-found page. */
export const NOT_FOUND_SEGMENT_ATTRIBUTE = 'app.not_found';

/**
 * The not-found page's segment when a route did match a prefix of the path (`/about/nope` is
 * named `/about`) or threw `notFound()`: the router's state decides, not the segment's name.
 */
export function isNotFoundRouterSegment(segment: SegmentSummary): boolean {
  return segment.attributes[NOT_FOUND_SEGMENT_ATTRIBUTE] === true;
}

/** What the segment filter drops when the segment ends. */
export function isUnwantedRouterSegment(segment: SegmentSummary): boolean {
  return isIncompleteRouterSegment(segment) || isNotFoundRouterSegment(segment);
}

/** The SDK's filter object type for `ignoreSpans` (not exported by name). */
type IgnoreSpanFilter = Exclude<NonNullable<ClientOptions['ignoreSpans']>[number], string | RegExp>;

// --- helpers -----------------------------------------------------------------------------------

function messagesOf(event: ErrorEvent): string[] {
  const messages: string[] = [];
  if (typeof event.message === 'string') messages.push(event.message);
  for (const exception of event.exception?.values ?? []) {
    if (exception.value) messages.push(exception.value);
  }
  return messages;
}

function framesOf(event: ErrorEvent): StackFrame[] {
  return (event.exception?.values ?? []).flatMap((exception) => exception.stacktrace?.frames ?? []);
}

function hasStack(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack = Reflect.get(value, 'stack');
  return typeof stack === 'string' && stack.includes('\n');
}

/** A route match as the not-found rule reads it. */
export interface RouteMatchState {
  status?: string;
  globalNotFound?: boolean;
}

/** The router as the segment filter reads it: its matches. */
export interface RouterMatchesSource {
  state: { matches: ReadonlyArray<RouteMatchState> };
}

/**
 * Whether the router is showing the not-found page. Framework-free on purpose: it reads the
 * two fields Router 1.120 sets (router-core's own `hasNotFoundMatch` reads the same), through
 * a structural type, so the rule can be unit tested without a router.
 * - `status: 'notFound'`: a route's beforeLoad or loader threw `notFound()` (for example
 *   /errors with SENTRY_DSN set, or /sentry-example-page with example routes off);
 * - `globalNotFound`: the path matched only a prefix of the route tree (`/about/nope`).
 * The tracing integration still names such page loads after the last route that matched.
 */
export function showsNotFound(matches: ReadonlyArray<RouteMatchState>): boolean {
  return matches.some((match) => match.status === 'notFound' || match.globalNotFound === true);
}
