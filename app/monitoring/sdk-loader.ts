/**
 * The Sentry SDK, loaded once the page has hydrated and needs it: the page view is traced, there
 * is something to report (caught on this page, or left by an earlier one), or the SDK's offline
 * store holds envelopes (decisions 0910, 0950, 0510). Starts the client, continuing the session
 * the page started, and takes over from the recorder (recorder/recorder.ts): the SDK builds each
 * report's event with its own code, from the original error where the page still has it and from
 * the recorded facts otherwise, with the report's id, time and page. Only
 * start-browser-monitoring.ts imports it, with `import()`: everything here, the client's options,
 * the adopted page session, the offline delivery transport and the filter for opaque
 * "Script error." events, lives in the lazily loaded chunk.
 */
import {
  BrowserClient,
  type BrowserOptions,
  breadcrumbsIntegration,
  browserApiErrorsIntegration,
  captureException,
  consoleIntegration,
  dedupeIntegration,
  eventFiltersIntegration,
  functionToStringIntegration,
  getCurrentScope,
  globalHandlersIntegration,
  httpContextIntegration,
  linkedErrorsIntegration,
  makeBrowserOfflineTransport,
  makeFetchTransport,
  normalizeStringifyValue,
  setContext,
  withScope,
} from '@sentry/browser';
import {
  applySdkMetadata,
  captureSession,
  defineIntegration,
  type Envelope,
  type ErrorEvent,
  envelopeItemTypeToDataCategory,
  forEachEnvelopeItem,
  getIsolationScope,
  type Integration,
  initAndBind,
  isRateLimited,
  type OfflineTransportOptions,
  type RateLimits,
  type StackParser,
  setNormalizeStringifier,
  startSession,
  type Transport,
  type TransportMakeRequestResponse,
  updateRateLimits,
  updateSession,
} from '@sentry/core';
import { defaultStackParser, type tanstackRouterBrowserTracingIntegration } from '@sentry/react';
import { version as reactVersion } from 'react';
import type { PublicConfig } from '#app/site-config';
import { isDsn, parseDsn, tunnelUrlOf } from './dsn';
import {
  EXTENSION_URLS,
  isDetailedScriptError,
  isLocalInboxPage,
  isNoiseEvent,
  NOT_FOUND_SEGMENTS,
  RESIZE_OBSERVER_LOOP_NOTICES,
} from './filters';
import { limitStackFrames, markInAppFrames } from './in-app';
import type { Recorded, Recorder, Report, ReportReceiver } from './recorder/recorder';
import { REPORT_QUEUE_SIZE } from './recorder/report-store';
import type { PageSession } from './start-browser-monitoring';

/** What the page decided before the SDK came; no session on the inbox's own pages. */
export interface PageView {
  session: PageSession | undefined;
  traced: boolean;
}

/**
 * @param beforeHandOver adds what must see the recorder's reports too (Spotlight, in development).
 */
export function startSentry(
  config: PublicConfig,
  recorder: Recorder,
  page: PageView,
  beforeHandOver: () => void = () => {},
): Promise<void> {
  startBrowserClient(browserOptions(config, deliveryTransport, page.traced), page.session);
  beforeHandOver();
  // In the same task as the client's global handlers start: no error is caught twice or missed.
  return recorder.handOver(sdkReceiver, true);
}

/** How the browser SDK makes its transport (its options type is not exported). */
export type BrowserTransportFactory = NonNullable<BrowserOptions['transport']>;

/** The router as the TanStack Router integration takes it. */
export type TracedRouter = Parameters<typeof tanstackRouterBrowserTracingIntegration>[0];

/**
 * The options of the browser's Sentry client, from the public config: pure, so that the limits
 * and filters can be checked in a unit test. Tracing is added later, when the page view is
 * traced (tracing.ts).
 *
 * @param transport how envelopes are sent: `deliveryTransport` below.
 * @param traced whether this page view is traced: decided when the page started, with the
 *   config's `tracesSampleRate`, for the page load and every navigation after it (decision 0950).
 */
export function browserOptions(
  config: PublicConfig,
  transport: BrowserTransportFactory,
  traced: boolean,
): BrowserOptions & {
  stackParser: StackParser;
  transport: BrowserTransportFactory;
  tunnel: string;
} {
  const dsn = parseDsn(config.dsn);
  if (!isDsn(dsn)) throw new Error(`The browser DSN is not a Sentry DSN (${dsn.error})`);
  // `maxQueueSize` is the browser offline store's own option (its type is not exported).
  const transportOptions: Pick<OfflineTransportOptions, 'bufferSize' | 'flushAtStartup'> & {
    maxQueueSize: number;
  } = {
    // At most 64 envelopes in flight, and as many kept offline (the SDK's store keeps 30):
    // what the recorder kept while the SDK was away fits in both (decision 0510).
    bufferSize: REPORT_QUEUE_SIZE,
    maxQueueSize: REPORT_QUEUE_SIZE,
    // Sends what a previous visit left in the offline store when the next page loads.
    flushAtStartup: true,
  };
  return {
    dsn: config.dsn,
    // Recomputed from the DSN with the one shared mapping, so it always names that DSN.
    tunnel: tunnelUrlOf(dsn),
    environment: config.environment,
    release: config.release,
    // Read when a span starts, so given now although the tracing integration comes later. The
    // page view was sampled already: all of it is traced, or none.
    tracesSampleRate: traced ? 1 : 0,
    transport,
    transportOptions,
    // The 50 frames nearest the throw, each in-app only when it is our code (in-app.ts).
    stackParser: markInAppFrames(limitStackFrames(defaultStackParser)),
    ignoreErrors: RESIZE_OBSERVER_LOOP_NOTICES,
    denyUrls: EXTENSION_URLS,
    ignoreSpans: NOT_FOUND_SEGMENTS,
    beforeSend: (event, hint) => {
      if (isNoiseEvent(event, hint)) return null;
      if (isLocalInboxPage(config.dsn, event.request?.url)) {
        console.warn(
          '[monitoring] not stored: an error on the inbox’s own page',
          hint.originalException,
        );
        return null;
      }
      return event;
    },
    // The back-off after a 429 without Retry-After / X-Sentry-Rate-Limits is the SDK's
    // default of 60 s (core's DEFAULT_RETRY_AFTER); tests/e2e/browser-reporting.spec.ts holds it.
  };
}

/**
 * An Error as the page would have thrown it: the SDK reads its name, message and stack. No
 * stack when none was recorded: the SDK then uses where the browser said it happened.
 */
function errorOf(report: Report): Error {
  const error = new Error(report.message);
  error.name = report.name ?? 'Error';
  error.stack = report.stack ?? '';
  return error;
}

/** What was thrown: the original while the page lives, else rebuilt from the facts. */
function thrownOf({ report, original }: Recorded): unknown {
  if (original !== undefined) return original;
  // A value that was not an Error is known only as text.
  return report.name === undefined ? report.message : errorOf(report);
}

/** Each report as the SDK would have made it then: same handler, same error, same time. */
export const sdkReceiver: ReportReceiver = {
  receive(recorded: Recorded) {
    const { report } = recorded;
    withScope((scope) => {
      // The report's own id (so that it is sent once), time and page, whenever the SDK sends it.
      scope.addEventProcessor((event) => ({
        ...event,
        event_id: report.id,
        timestamp: report.at,
        request: { ...event.request, url: report.url },
      }));
      const thrown = thrownOf(recorded);
      switch (report.kind) {
        case 'error':
          // Through the SDK's own window.onerror, as Sentry's loader replays them.
          window.onerror?.(
            report.message,
            report.filename,
            report.lineno,
            report.colno,
            // The SDK's handler takes anything thrown; its type says Error.
            (thrown instanceof Error || recorded.original !== undefined ? thrown : undefined) as
              | Error
              | undefined,
          );
          break;
        case 'rejection':
          window.onunhandledrejection?.({ reason: thrown } as PromiseRejectionEvent);
          break;
        case 'asset':
        case 'exception':
          captureException(thrown, { mechanism: report.mechanism, event_id: report.id });
          break;
        case 'message':
          scope.setTags(report.tags ?? {});
          scope.setExtras(report.extra ?? {});
          getCurrentScope().captureMessage(report.message, report.level, { event_id: report.id });
          break;
      }
    });
  },
};

/** What the client needs beyond `BrowserOptions`: `browserOptions` always gives both. */
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
export function errorIntegrations(session: PageSession | undefined): Integration[] {
  const integrations = [
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
  ];
  // A session per page load, for Sentry's release health (crash-free sessions): the one the page
  // started before the SDK came, if it started one.
  if (session) integrations.push(adoptedSessionIntegration(session));
  return integrations;
}

/**
 * Starts the browser's Sentry client from `BrowserClient` and a chosen list of integrations,
 * instead of `Sentry.init`, which always references all of the SDK's default integrations
 * (and so bundles them). Otherwise what `@sentry/react`'s `init` does (11.12): the `react` SDK
 * name and context, the browser's value normaliser, the client bound to the current scope.
 * Which integrations, and why the others are left out: docs/decisions/0910-*.md.
 */
export function startBrowserClient(options: StartOptions, session: PageSession | undefined): void {
  const clientOptions: ConstructorParameters<typeof BrowserClient>[0] = {
    ...options,
    integrations: errorIntegrations(session),
  };
  applySdkMetadata(clientOptions, 'react');
  setContext('react', { version: reactVersion });
  setNormalizeStringifier(normalizeStringifyValue);
  initAndBind(BrowserClient, clientOptions);
}

/**
 * Release health when the SDK loads late, or never (decision 0950): the page starts its session
 * and sends it without the SDK (start-browser-monitoring.ts); the SDK, if it loads, continues that session
 * (same id, no second `init`), so that an error counts, and an uncaught one marks it `unhandled`,
 * as the browser SDK does. In place of the SDK's browserSession integration, whose default (one
 * session a page load, sent once the page is idle, again when the user changes) this keeps,
 * minus the start.
 */
export const adoptedSessionIntegration = defineIntegration((page: PageSession) => ({
  // The SDK's own name: there must never be both.
  name: 'BrowserSession',
  setupOnce() {
    const session = startSession({ ignoreDuration: true });
    // As the page left it: errors sent without the SDK already count (start-browser-monitoring.ts).
    updateSession(session, {
      sid: page.sid,
      started: page.started,
      init: false,
      status: page.status,
      errors: page.errors,
    });
    const isolationScope = getIsolationScope();
    let user = isolationScope.getUser();
    isolationScope.addScopeListener((scope) => {
      const next = scope.getUser();
      if (next?.id !== user?.id || next?.ip_address !== user?.ip_address) {
        user = next;
        captureSession();
      }
    });
  },
}));

/**
 * What an answer means for the envelope: `sent`, or `later` when the same envelope may be taken
 * another time (429: rate-limited; 5xx: the tunnel or Sentry busy or away). Any other 4xx is
 * final: sending it again gets the same answer. No status: nothing was sent (the SDK's queue was
 * full, or every item was rate-limited, which `send` below never lets through).
 */
export function deliveryOf(status: number | undefined): 'sent' | 'later' {
  if (status === undefined) return 'sent';
  return status === 429 || status >= 500 ? 'later' : 'sent';
}

/** Thrown to the offline transport: the envelope waits in its store, and is tried again later. */
export class DeliveryDeferred extends Error {
  override name = 'DeliveryDeferred';
}

/** Whether some item of the envelope is in a rate limit's back-off now. */
function isHeldBack(envelope: Envelope, limits: RateLimits, now: number): boolean {
  let held = false;
  forEachEnvelopeItem(envelope, (_item, type) => {
    if (isRateLimited(limits, envelopeItemTypeToDataCategory(type), now)) held = true;
  });
  return held;
}

/**
 * The transport the offline transport wraps: the SDK's fetch transport, with what it would drop
 * or lose turned into an error the offline transport stores. Back-offs are learnt from the same
 * answers, by the same rule (`updateRateLimits`, Retry-After or 60 s), as the fetch transport's.
 */
export function deferringTransport(
  makeInner: BrowserTransportFactory,
  now: () => number = Date.now,
): BrowserTransportFactory {
  return (options) => {
    const inner: Transport = makeInner(options);
    let limits: RateLimits = {};
    return {
      async send(envelope: Envelope): Promise<TransportMakeRequestResponse> {
        if (isHeldBack(envelope, limits, now())) throw new DeliveryDeferred('rate limit back-off');
        // A network error rejects here: the offline transport stores the envelope for that too.
        const response = await inner.send(envelope);
        limits = updateRateLimits(limits, response, now());
        if (deliveryOf(response.statusCode) === 'later') {
          throw new DeliveryDeferred(`the tunnel answered ${response.statusCode}`);
        }
        return response;
      },
      flush: (timeout) => inner.flush(timeout),
    };
  };
}

/**
 * How the SDK sends, once loaded: the SDK's own fetch transport (its queue of 64 and its rate
 * limits) inside the SDK's own offline transport (IndexedDB, retried with back-off, when the
 * browser comes back online and when the SDK next starts), with one rule between them that the
 * SDK lacks: an envelope that the tunnel could not take now is kept too, not only one that met a
 * network error. The SDK drops an envelope answered 5xx (the tunnel's 503 under a burst, a 502
 * or 504 when Sentry is away) and one that meets a rate limit's back-off; here both wait in the
 * offline store and are sent once the back-off is over. Decision 0510. `browserOptions` gives it
 * the queue and store sizes.
 */
export const deliveryTransport: BrowserTransportFactory = makeBrowserOfflineTransport(
  deferringTransport(makeFetchTransport),
);

/**
 * The SDK's inbound filter (`EventFilters`) lets a "Script error." with detail through. Its
 * built-in message patterns drop every "Script error." (core's `DEFAULT_IGNORE_ERRORS`), while
 * only the one without a stack or a location is noise (filters.ts). So the SDK's own filter is
 * kept, twice: with its defaults for every event, and without them for a "Script error." with
 * detail, which still goes through the options' `ignoreErrors`, `denyUrls` and `allowUrls`.
 * None of the other default patterns could match "Script error." anyway.
 */
export function eventFiltersReportingDetailedScriptErrors(): Integration {
  const withDefaults = eventFiltersIntegration();
  const withoutDefaults = eventFiltersIntegration({ disableErrorDefaults: true });
  return {
    name: withDefaults.name,
    setup(client) {
      withDefaults.setup?.(client);
      withoutDefaults.setup?.(client);
    },
    processEvent(event, hint, client) {
      // Error events have no type; transactions and others keep the default filter.
      const detailed = !event.type && isDetailedScriptError(event as ErrorEvent, hint);
      const filter = detailed ? withoutDefaults : withDefaults;
      return filter.processEvent ? filter.processEvent(event, hint, client) : event;
    },
  };
}
