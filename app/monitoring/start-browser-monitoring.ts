/**
 * The page's monitoring, started by app/client.tsx: it waits for hydration, names the page load's
 * route, keeps reports offline, drops noise, loads the SDK (and tracing) only when the page needs
 * it, reports Content-Security-Policy violations, and keeps the page's session (release health).
 *
 * Browser side, before hydration: no SDK. The recorder (recorder/recorder.ts, inline in the head)
 * has caught errors from the first byte; the app claims it here, hands it the SDK's noise rules,
 * and starts the page's release-health session. The Sentry SDK loads from our origin once the
 * page has hydrated, and only if the page needs it (decision 0950): the page view is traced
 * (decided here, with the config's sample rate), there is something to report (caught here, or
 * left by an earlier page view), or the SDK's offline store holds envelopes. Then it continues
 * the session and takes the reports over; tracing loads beside it for a traced page view. If the
 * SDK cannot load (offline, a deploy removed it), the recorder sends the reports itself, as they
 * come, and keeps what cannot leave yet; the SDK is tried again once online and on its own retry
 * schedule (`loadUntilLoaded`). See docs/decisions/0910-*.md, 0950-*.md, 0510-*.md and 1040-*.md.
 */
import type { ErrorEvent } from '@sentry/core';
import type { PublicConfig } from '#app/site-config';
import { isDsn, parseDsn } from './dsn';
import {
  isExtensionUrl,
  isLocalInboxPage,
  isNoiseEvent,
  isResizeObserverLoopNotice,
} from './filters';
import { type EnvelopeContext, minimalEvent } from './recorder/minimal-envelope';
import type { Recorded, Recorder } from './recorder/recorder';
import { type Report, randomEventId, type SdkMetadata } from './recorder/recorder';
import type { PageView, TracedRouter } from './sdk-loader';
import type { PageLoadRouter } from './tracing';

/**
 * When hydration never completes (it failed outright), the page counts as hydrated this long
 * after monitoring started: the error that broke the page is waiting for the SDK.
 */
export const LATE_MONITORING_DEADLINE_MS = 5_000;

/** @param shellHydrated resolves once React has committed the hydrated document's shell. */
export function startBrowserMonitoring(
  router: TracedRouter & PageLoadRouter & RenderedRouter,
  config: PublicConfig | undefined,
  recorder: Recorder,
  shellHydrated: Promise<void>,
): void {
  // Every page the server renders carries the config; only a page that is not ours does not.
  if (!config) {
    console.error('[monitoring] the page carries no site config: browser errors are not reported');
    return;
  }
  const dsn = parseDsn(config.dsn);
  if (!isDsn(dsn)) throw new Error(`The browser DSN is not a Sentry DSN (${dsn.error})`);
  const page: PageView = {
    session: pageSession(config.dsn, window.location.href),
    // Below 1, so a rate of 1 traces every page view and 0 none.
    traced: Math.random() < config.tracesSampleRate,
  };
  const session = page.session && sessionSender(config, page.session, recorder.sdk);
  recorder.claim({
    keep: isWorthSending,
    // An error on the inbox's pages (reached by a client-side navigation) is not the app's: it
    // does not touch the session, as the SDK's `beforeSend` never lets it reach the session.
    leavingWithoutSdk: (reports) =>
      session?.leaving(reports.filter((report) => !isLocalInboxPage(config.dsn, report.url))),
  });
  const pageLoad = router.state.location;
  const needed = whenSdkNeeded(page, recorder);
  const hydrated = whenPageHydrated(router, shellHydrated);
  const deadline = new Promise<void>((resolve) => setTimeout(resolve, LATE_MONITORING_DEADLINE_MS));

  const loadSdk = () =>
    Promise.all([
      import('./sdk-loader'),
      page.traced ? import('./tracing').catch(tracingDidNotLoad) : undefined,
      // Spotlight's integration lives in the tracing chunk (tracing.ts); a failed load is retried.
      config.spotlight ? import('./tracing') : undefined,
    ])
      .then(async ([late, tracing, spotlight]) => {
        const handedOver = late.startSentry(config, recorder, page, () =>
          spotlight?.startSpotlight(config),
        );
        try {
          tracing?.startTracing(router, pageLoad);
        } catch (error) {
          // The SDK runs: only this page view's traces are lost.
          tracingDidNotLoad(error);
        }
        await handedOver;
      })
      .catch((error: unknown) => {
        // Once the SDK has taken over, what failed after it (tracing) is not a reason to retry.
        if (!recorder.handedOver()) throw error;
      });
  let sendingWithoutSdk = false;
  const whileSdkUnavailable = (error: unknown, retryInMs: number) => {
    console.warn(
      `[monitoring] the Sentry SDK did not load; reports are sent without it, and the SDK is tried again once online or in ${retryInMs / 1000} s`,
      error,
    );
    // What waits, and each report as it comes, leaves now: a retried import may never succeed
    // (a deploy removed the chunk; a browser that caches the failed import). Decision 1040.
    if (!sendingWithoutSdk) recorder.onReport(() => void recorder.sendWaiting());
    sendingWithoutSdk = true;
    void recorder.sendWaiting();
  };

  Promise.race([hydrated, deadline])
    .then(() => {
      // Sent as the SDK would send it, once the page is ready, whether the SDK ever comes or not.
      session?.start();
      return needed;
    })
    .then(() => loadUntilLoaded(loadSdk, whileSdkUnavailable));
}

/**
 * What the page does while the Sentry SDK's chunk cannot be loaded (decision 1040): the recorder
 * sends what waits without it, and the SDK is tried again when the browser says it is back
 * online or on the SDK's own retry schedule, whichever comes first. The schedule is needed
 * because `online` fires only for a network the browser saw go: a network that fails behind a
 * connected interface (a router, a captive portal, a proxy) never sends it. These two are the
 * schedule of the SDK's offline transport (@sentry/core 11.12).
 */
export const FIRST_RETRY_MS = 5_000;
export const MAX_RETRY_MS = 60 * 60_000;

/** How long after its n-th failed load in a row (1, 2, …) the SDK is tried again. */
export function sdkRetryDelayMs(failures: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), MAX_RETRY_MS);
}

/**
 * Runs `load` until it resolves. After each failure, `whileUnavailable` runs (with the error and
 * the delay before the next try), and `load` runs again at `online` or after the delay.
 */
export function loadUntilLoaded(
  load: () => Promise<void>,
  whileUnavailable: (error: unknown, retryInMs: number) => void,
  browser: Pick<EventTarget, 'addEventListener' | 'removeEventListener'> = window,
): void {
  let failures = 0;
  const attempt = () => {
    load().catch((error: unknown) => {
      failures++;
      const delay = sdkRetryDelayMs(failures);
      const again = () => {
        clearTimeout(timer);
        browser.removeEventListener('online', again);
        attempt();
      };
      const timer = setTimeout(again, delay);
      browser.addEventListener('online', again);
      whileUnavailable(error, delay);
    });
  };
  attempt();
}

/**
 * The session of a page view, one per page load as the SDK's: none when the page loads on one
 * of the local inbox's own pages, which are the operator's, not the app's users'; a client-side
 * navigation later changes nothing, either way (decision 1131).
 */
export function pageSession(dsn: string, pageUrl: string): PageSession | undefined {
  if (isLocalInboxPage(dsn, pageUrl)) return undefined;
  return { sid: randomEventId(), started: Date.now() / 1000, status: 'ok', errors: 0 };
}

/**
 * Resolves when the page needs the SDK: at once for a traced page view; otherwise at the first
 * report that is not noise, or when the offline store holds envelopes to send. Never, for most
 * page views: the SDK then costs them nothing.
 */
function whenSdkNeeded(page: PageView, recorder: Recorder): Promise<void> {
  if (page.traced) return Promise.resolve();
  return new Promise((resolve) => {
    // The recorder keeps only reports worth sending (`isWorthSending`): each one is a reason.
    recorder.onReport(() => resolve());
    void offlineStoreHasEnvelopes().then((leftovers) => {
      if (leftovers) resolve();
    });
  });
}

function tracingDidNotLoad(error: unknown): undefined {
  console.warn('[monitoring] tracing did not start; this page view is not traced', error);
  return undefined;
}

/**
 * The page's session without the SDK: started at hydration, and updated as reports leave
 * without it: by beacon as the tab closes (the recorder calls `leaving` first: the browser
 * refuses beacons once 64 KiB are in flight, which a burst of events can reach), or sent by the
 * recorder while the SDK cannot load (after each one the tunnel took).
 */
function sessionSender(config: PublicConfig, session: PageSession, sdk: SdkMetadata) {
  let started = false;
  const envelope = (next: PageSession) =>
    sessionEnvelope(
      next,
      {
        dsn: config.dsn,
        environment: config.environment,
        release: config.release,
        userAgent: navigator.userAgent,
        sentAt: new Date(),
        sdk,
      },
      !started,
    );
  return {
    // With `fetch`, which the SDK's tracing does not list as a resource of the page load (it
    // traces fetches itself, and this one starts before it), where a beacon would be. Skipped
    // when a report sent as the tab closed before hydration has started the session already.
    start() {
      if (started) return;
      fetch(config.tunnel, { method: 'POST', body: envelope(session), keepalive: true }).catch(
        () => {
          // Offline or blocked: the session is lost, as the SDK's would be without a store.
        },
      );
      started = true;
    },
    // An uncaught error marks the session `unhandled` here too, or the page's crash would count
    // as a healthy session whenever the SDK never came. Kept only if the browser took it.
    leaving(reports: readonly Report[]) {
      const next = sessionAfter(session, reports);
      if (next && navigator.sendBeacon(config.tunnel, envelope(next))) {
        Object.assign(session, next);
        started = true;
      }
    },
  };
}

/**
 * When the whole page has hydrated. React commits the document's shell first (the root route's
 * document and navigation: `shellCommitted`, from an effect beside `<StartClient>`), and Router
 * 1.120 renders the route under the root inside a Suspense boundary (the root's `<Outlet>`),
 * which React hydrates in a later pass; the router emits `onRendered` when that content commits
 * (from its `OnRendered` element, rendered beside the route when `scrollRestoration` is on, as
 * app/router.tsx has it). Framework-free through a structural type, to be unit tested.
 */

export interface RootMatchState {
  status: string;
  globalNotFound?: boolean;
}

export interface RenderedRouter {
  options: { scrollRestoration?: boolean };
  state: { matches: ReadonlyArray<RootMatchState> };
  subscribe(event: 'onRendered', listener: () => void): () => void;
}

/**
 * Whether the router renders a route under the root, so that its content hydrates after the
 * shell and `onRendered` follows. Not when the root shows the not-found page (an unknown path)
 * or its error page: then the shell is the whole page.
 */
export function routeContentFollowsShell(router: RenderedRouter): boolean {
  const [root, child] = router.state.matches;
  return (
    router.options.scrollRestoration === true &&
    root?.status === 'success' &&
    root.globalNotFound !== true &&
    child !== undefined
  );
}

/** Subscribe before hydration starts: `onRendered` may come in the same pass as the shell. */
export function whenPageHydrated(
  router: RenderedRouter,
  shellCommitted: Promise<void>,
): Promise<void> {
  const routeRendered = new Promise<void>((resolve) => {
    const unsubscribe = router.subscribe('onRendered', () => {
      unsubscribe();
      resolve();
    });
  });
  return shellCommitted.then(() => (routeContentFollowsShell(router) ? routeRendered : undefined));
}

/**
 * Whether the SDK's offline store holds envelopes that an earlier visit could not send. The SDK
 * sends them when it starts (`flushAtStartup`, `browserOptions`), but it loads only when this
 * page needs it (decision 0950), so the page looks first, without the SDK. The names are the
 * SDK's defaults (@sentry/browser 11.12, its offline transport), which `browserOptions` keeps.
 */
export const OFFLINE_DATABASE = 'sentry-offline';
export const OFFLINE_STORE = 'queue';

export async function offlineStoreHasEnvelopes(factory?: IDBFactory): Promise<boolean> {
  try {
    // Read inside the `try`: where storage is blocked, reading it can throw.
    const databases = factory ?? globalThis.indexedDB;
    if (!databases) return false;
    // Opening a database that does not exist would create it empty, without the store, and the
    // SDK, which creates the store only when it creates the database, could then store nothing.
    // Where the browser cannot list its databases, the SDK looks instead.
    if (typeof databases.databases !== 'function') return true;
    const existing = await databases.databases();
    if (!existing.some((database) => database.name === OFFLINE_DATABASE)) return false;
    const opening = databases.open(OFFLINE_DATABASE);
    // Deleted since it was listed (site data cleared, another tab): opening would create it
    // empty. Aborting the upgrade removes it again, and the open fails.
    opening.onupgradeneeded = () => opening.transaction?.abort();
    const database = await requested(opening);
    try {
      if (!database.objectStoreNames.contains(OFFLINE_STORE)) return false;
      const store = database.transaction(OFFLINE_STORE, 'readonly').objectStore(OFFLINE_STORE);
      return (await requested(store.count())) > 0;
    } finally {
      database.close();
    }
  } catch {
    // Storage refused (private mode, a quota, a policy): the SDK could not use it either.
    return false;
  }
}

function requested<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/**
 * Whether the SDK would send a report: not noise by the filters it is given (filters.ts, wired
 * in `browserOptions` as `ignoreErrors`, `denyUrls` and `beforeSend`). The app hands this rule
 * to the recorder when it starts: noise is neither kept (a ResizeObserver notice can come every
 * frame and would crowd the 64 places before a real error) nor a reason to load the SDK, and
 * never leaves by beacon.
 */
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

/**
 * Content-Security-Policy violations in the page, reported through the SDK (so through the
 * tunnel, the only origin the policy lets the page talk to). A few per page: one injected
 * script blocked on every frame must not flood the queue of 64.
 */
export const MAX_CSP_REPORTS_PER_PAGE = 3;

export interface CspViolation {
  effectiveDirective: string;
  blockedURI: string;
  sourceFile: string;
  lineNumber: number;
  disposition: string;
}

/** What is sent for one violation: a short message, and the details as tags and extra. */
export function describeViolation(violation: CspViolation): {
  message: string;
  tags: Record<string, string>;
  extra: Record<string, string | number>;
} {
  // "inline", "eval" or a URL: the origin is enough to group by, the path goes in extra.
  const blocked = blockedOrigin(violation.blockedURI);
  return {
    message: `Content-Security-Policy: ${violation.effectiveDirective} blocked ${blocked}`,
    tags: { csp_directive: violation.effectiveDirective, csp_disposition: violation.disposition },
    extra: {
      blockedURI: violation.blockedURI.slice(0, 500),
      sourceFile: violation.sourceFile.slice(0, 500),
      lineNumber: violation.lineNumber,
    },
  };
}

function blockedOrigin(uri: string): string {
  if (!uri.includes(':')) return uri || 'inline';
  try {
    const url = new URL(uri);
    return url.origin === 'null' ? `${url.protocol}` : url.origin;
  } catch {
    return uri.slice(0, 100);
  }
}

/** Starts listening; `report` is called for at most MAX_CSP_REPORTS_PER_PAGE violations. */
export function reportCspViolations(
  target: Pick<Document, 'addEventListener' | 'removeEventListener'>,
  report: (description: ReturnType<typeof describeViolation>) => void,
): () => void {
  let reported = 0;
  const listener = (event: Event) => {
    if (reported >= MAX_CSP_REPORTS_PER_PAGE) return;
    reported++;
    report(describeViolation(event as SecurityPolicyViolationEvent));
  };
  target.addEventListener('securitypolicyviolation', listener);
  return () => target.removeEventListener('securitypolicyviolation', listener);
}

/**
 * The page's release-health session, which starts before the SDK (loaded only when needed, if
 * ever, decision 0950): sent without it at hydration, and updated without it when reports leave
 * by beacon as the tab closes. The SDK, if it loads, continues the same session
 * (sdk-loader.ts). Both the envelope and the update rule are the SDK's, written small;
 * tests/unit/monitoring/start-browser-monitoring.test.ts holds them to the SDK's own output.
 *
 * `started` in seconds since the epoch; `status` and `errors` as last sent without the SDK. The
 * SDK, if it loads, starts from them and keeps its own copy.
 */
export interface PageSession {
  sid: string;
  started: number;
  status: 'ok' | 'unhandled';
  errors: number;
}

/** What a session envelope says besides the session: the same as a report's envelope. */
export type SessionContext = EnvelopeContext;

/**
 * A session envelope, as the SDK's client sends one (one session a page load, its duration not
 * tracked). With `init`, the session's first envelope.
 */
export function sessionEnvelope(
  session: PageSession,
  context: SessionContext,
  init = true,
): string {
  const header = { sent_at: context.sentAt.toISOString(), sdk: context.sdk, dsn: context.dsn };
  const item = {
    sid: session.sid,
    init,
    started: new Date(session.started * 1000).toISOString(),
    timestamp: context.sentAt.toISOString(),
    status: session.status,
    errors: session.errors,
    attrs: {
      release: context.release,
      environment: context.environment,
      user_agent: context.userAgent,
    },
  };
  return [JSON.stringify(header), JSON.stringify({ type: 'session' }), JSON.stringify(item)].join(
    '\n',
  );
}

/**
 * The session once these reports are sent, when the SDK would send an update for them, else
 * undefined. The SDK's rule (`_updateSessionFromEvent` in @sentry/core's client): only while the
 * session is `ok`, at its first error and at its first unhandled one, which the browser SDK marks
 * `unhandled`. A message counts as a (handled) error too: the browser SDK 11 gives a message
 * event a synthetic exception. tests/unit/monitoring/start-browser-monitoring.test.ts checks each case
 * against the SDK itself.
 */
export function sessionAfter(
  session: PageSession,
  reports: readonly Report[],
): PageSession | undefined {
  let next: PageSession | undefined;
  for (const report of reports) {
    const current = next ?? session;
    if (current.status !== 'ok') break;
    const unhandled = report.mechanism?.handled === false;
    const status = unhandled ? 'unhandled' : current.status;
    const errors = current.errors || 1;
    if (status === current.status && errors === current.errors) continue;
    next = { ...current, status, errors };
  }
  return next;
}
