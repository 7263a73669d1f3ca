/**
 * The recorder, the page's first script, inline in the document head with the response's CSP
 * nonce (`installRecorder` below, rendered by app/routes/__root.tsx), running before any
 * module. Sentry's Loader Script pattern, from our origin, and past it on delivery
 * (docs/decisions/0510-recorder-first-and-no-report-lost.md):
 *
 * - It catches `error` and `unhandledrejection` from the first byte, and a failed load of one of
 *   our own scripts (`/_build/…`), which it reports naming the asset: if the client entry or the
 *   React chunk does not load, nothing else can report.
 * - It keeps raw facts (`Report`), stored at once (report-store.ts), so that a report outlives
 *   a lost connection, an SDK that does not load, a reload and a closed tab.
 * - The app's bundle claims it when it runs (start-browser-monitoring.ts) and loads the SDK when
 *   there is something to send; the SDK takes the reports (`handOver`) and builds the events.
 * - Without the SDK: as the tab closes, reports leave by beacon as minimal envelopes
 *   (minimal-envelope.ts); if the app never ran, the recorder sends them itself after the load
 *   event, and again when the browser comes back online; if the SDK cannot load (offline, a
 *   deploy removed its chunk), the app has the recorder send them itself (`sendWaiting`,
 *   decision 1040). Either way each report is settled by its event id, so it is sent once.
 *
 * It must stay small (its gzip bytes count in the page-weight budget): no SDK code, no filters
 * (the app hands its noise rules over when it claims the recorder).
 *
 * Here: what it records (a report: the facts of one error, with its id and time, and the SDK
 * metadata it is sent with), then the recorder itself. Where it keeps reports: report-store.ts.
 */
import { SDK_VERSION } from '@sentry/core';
import { MAX_MESSAGE_CHARS } from '../in-app';
import { minimalEnvelope } from './minimal-envelope';
import { openReportStore, REPORT_QUEUE_SIZE } from './report-store';

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

/**
 * What the recorder keeps of one report: plain facts, JSON that survives a reload, never a
 * Sentry event. The SDK makes the event from them with its own code (app/monitoring/sdk-loader.ts);
 * only when a report must leave without the SDK does minimal-envelope.ts write one by hand.
 */
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

/** Where the page finds the recorder: `window.__monitoringRecorder`. */
export const RECORDER_GLOBAL = '__monitoringRecorder';

/**
 * The inline script: build/inline-scripts.ts bundles a call of this function, with what it
 * imports, into the string app/routes/__root.tsx renders first in the document head. Starts the
 * recorder once per page, also if `vinxi dev` runs the head's script again.
 */
export default function installRecorder(): void {
  if (!Reflect.has(window, RECORDER_GLOBAL))
    Reflect.set(window, RECORDER_GLOBAL, startRecorder(window));
}

/**
 * The page's recorder, as the app's bundle reaches it: the inline script in the head started it
 * before any module (`installRecorder`) and left it on `window`. Never on the server.
 */
export function pageRecorder(): Recorder | undefined {
  return typeof window === 'undefined' ? undefined : Reflect.get(window, RECORDER_GLOBAL);
}
/**
 * How long after the load event the recorder waits for the app before it sends what it holds
 * itself: the app claims it as its entry starts, long before that, unless its scripts failed.
 */
export const ALONE_AFTER_MS = 5_000;
/** The site config's element (app/site-config.tsx), read for the DSN only when sending alone. */
export const CONFIG_ELEMENT_ID = 'site-config';

/** A report, and while the page lives, what was thrown (for the SDK's linked errors, filters). */
export interface Recorded {
  report: Report;
  original?: unknown;
}

/** What takes the reports over: the SDK (sdk-loader.ts). */
export interface ReportReceiver {
  receive(recorded: Recorded): void;
}

/** What the app's bundle gives the recorder when it starts. */
export interface AppHooks {
  /** Whether a report is worth keeping: the SDK's noise rules (`isWorthSending`). */
  keep(recorded: Recorded): boolean;
  /**
   * Runs as reports leave without the SDK (the session's update): before they go by beacon as
   * the tab closes, after each one the recorder sent itself.
   */
  leavingWithoutSdk(reports: readonly Report[]): void;
}

export interface Recorder {
  /** The SDK's name and version, for what the app sends without it (its session). */
  sdk: SdkMetadata;
  /** Reports a caught error; returns the id its event will have. */
  captureException(error: unknown, mechanism: ReportMechanism): string;
  captureMessage(message: string, context: MessageContext): string;
  /** How many reports wait for the SDK. */
  pendingCount(): number;
  /** The app runs: the recorder keeps only what it would send, and no longer sends alone. */
  claim(app: AppHooks): void;
  /** Calls `listener` with each waiting report, now and as they come, until the hand-over. */
  onReport(listener: (recorded: Recorded) => void): void;
  /**
   * The SDK takes over: every waiting report (this page's, and those earlier pages left) goes to
   * `receiver`, settled so that no other page sends it, and later reports go straight to it.
   * With `catchesUncaughtErrors` (the SDK's own global handlers run) the recorder stops listening.
   */
  handOver(receiver: ReportReceiver, catchesUncaughtErrors: boolean): Promise<void>;
  handedOver(): boolean;
  /** Resolves once the SDK has taken over (never, if it does not). */
  whenHandedOver(): Promise<void>;
  /**
   * The SDK cannot load now: sends every waiting report itself, in order, as minimal envelopes.
   * Resolves when none is left, or the network or the tunnel says later (offline, 429, 5xx):
   * those stay waiting. A report on its way is neither beaconed nor handed over meanwhile.
   */
  sendWaiting(): Promise<void>;
}

interface MonitoringConfig {
  dsn: string;
  tunnel: string;
  environment: string;
  release: string;
}

export function startRecorder(win: Window & typeof globalThis): Recorder {
  const store = openReportStore(win);
  let pending: Recorded[] = [];
  let receiver: ReportReceiver | undefined;
  let app: AppHooks | undefined;
  const listeners: Array<(recorded: Recorded) => void> = [];
  let handingOver = false;
  const failedAssets = new Set<string>();
  let markHandedOver = () => {};
  const handedOver = new Promise<void>((resolve) => {
    markHandedOver = resolve;
  });

  const wait = (recorded: Recorded, stored: boolean) => {
    // The same bound as the store's: past it, as the SDK's full queue, new reports are dropped.
    if (pending.length >= REPORT_QUEUE_SIZE) return;
    if (pending.some((waiting) => waiting.report.id === recorded.report.id)) return;
    pending.push(recorded);
    if (!stored) void store.add(recorded.report);
    for (const listener of listeners) listener(recorded);
  };
  const add = (
    kind: ReportKind,
    facts: Omit<Report, 'id' | 'kind' | 'at' | 'url'>,
    original?: unknown,
  ): string => {
    const report: Report = {
      id: randomEventId(),
      kind,
      at: Date.now() / 1000,
      url: win.location.href,
      ...facts,
    };
    const recorded = { report, original };
    if (receiver) receiver.receive(recorded);
    else if (!app || app.keep(recorded)) wait(recorded, false);
    return report.id;
  };

  const onError = (event: Event) => {
    if (event.target !== win) {
      // A resource did not load (the event does not bubble: caught in the capture phase). Ours,
      // before the app runs: the page is likely dead. Once the app runs, what it loads (routes,
      // the SDK) is its own to report or retry.
      const asset = app ? undefined : ownScriptOf(event.target, win.location.origin);
      if (asset && !failedAssets.has(asset)) {
        failedAssets.add(asset);
        add('asset', {
          name: CHUNK_LOAD_ERROR,
          message: `Loading chunk ${asset} failed.`,
          filename: asset,
          mechanism: { type: ASSET_ERROR, handled: false },
        });
      }
      return;
    }
    const { error, message, filename, lineno, colno } = event as ErrorEvent;
    add(
      'error',
      {
        ...thrownFacts(error ?? message),
        filename,
        lineno,
        colno,
        mechanism: { type: ONERROR, handled: false },
      },
      error,
    );
  };
  const onRejection = (event: Event) => {
    const { reason } = event as PromiseRejectionEvent;
    add(
      'rejection',
      { ...thrownFacts(reason), mechanism: { type: ONUNHANDLEDREJECTION, handled: false } },
      reason,
    );
  };
  win.addEventListener('error', onError, true);
  win.addEventListener('unhandledrejection', onRejection);

  // What earlier page views left: this one sends it (when its SDK loads, or as it closes).
  void store.unsettled().then((reports) => {
    for (const report of reports) if (!receiver) wait({ report }, true);
  });

  const config = (): MonitoringConfig | undefined => {
    try {
      return JSON.parse(win.document.getElementById(CONFIG_ELEMENT_ID)?.textContent ?? '')
        .monitoring;
    } catch {
      return undefined;
    }
  };
  const envelopeOf = (report: Report, monitoring: MonitoringConfig) =>
    minimalEnvelope(report, {
      ...monitoring,
      userAgent: win.navigator.userAgent,
      sentAt: new Date(),
      sdk: SDK_METADATA,
    });
  const sent = (ids: string[]) => {
    store.settle(ids);
    pending = pending.filter((recorded) => !ids.includes(recorded.report.id));
  };
  const unsent = () => pending.filter((recorded) => !store.isSettled(recorded.report.id));

  // The tab is going away before the SDK took over: what waits leaves now, by beacon, the one
  // request that outlives the page. Offline it stays stored, for the next page view.
  win.addEventListener('pagehide', () => {
    const monitoring = config();
    // The one on its way by `fetch` (keepalive) is not sent twice: if it fails, it stays stored.
    const reports = unsent()
      .map((recorded) => recorded.report)
      .filter((report) => report.id !== onItsWay);
    if (receiver || !monitoring || reports.length === 0 || !win.navigator.onLine) return;
    app?.leavingWithoutSdk(reports);
    const beaconed: string[] = [];
    for (const report of reports) {
      // Refused past the browser's 64 KiB of beacons in flight: kept for the next page view.
      if (win.navigator.sendBeacon(monitoring.tunnel, envelopeOf(report, monitoring))) {
        beaconed.push(report.id);
      }
    }
    sent(beaconed);
  });

  // Without the SDK, the recorder sends what it holds itself, in order, one at a time (also what
  // comes meanwhile), and keeps what the tunnel cannot take now: when the app never claimed it
  // (its scripts failed), and when the app found that the SDK cannot load (`sendWaiting`).
  let sendingAlone: Promise<void> | undefined;
  let onItsWay: string | undefined;
  const sendEach = async (monitoring: MonitoringConfig) => {
    try {
      for (let next = unsent()[0]; next && !receiver && !handingOver; next = unsent()[0]) {
        const { report } = next;
        onItsWay = report.id;
        const response = await fetch(monitoring.tunnel, {
          method: 'POST',
          body: envelopeOf(report, monitoring),
          keepalive: true,
        });
        // Busy or rate-limited: later (the next try, back online, or the next page view). Any
        // other answer is final: a 4xx will not change by sending the same envelope again.
        if (response.status === 429 || response.status >= 500) break;
        sent([report.id]);
        app?.leavingWithoutSdk([report]);
      }
    } catch {
      // Offline: `online` (or the app's next try) tries again.
    } finally {
      onItsWay = undefined;
    }
  };
  const sendAlone = (): Promise<void> => {
    const monitoring = config();
    if (receiver || handingOver || !monitoring) return Promise.resolve();
    sendingAlone ??= sendEach(monitoring).finally(() => {
      sendingAlone = undefined;
    });
    return sendingAlone;
  };
  const sendAloneIfNoApp = () => {
    if (!app) void sendAlone();
  };
  win.addEventListener('load', () => setTimeout(sendAloneIfNoApp, ALONE_AFTER_MS));
  win.addEventListener('online', sendAloneIfNoApp);

  return {
    sdk: SDK_METADATA,
    captureException: (error, mechanism) =>
      add('exception', { ...thrownFacts(error), mechanism }, error),
    captureMessage: (message, context) =>
      add('message', { message, level: context.level, tags: context.tags, extra: context.extra }),
    pendingCount: () => pending.length,
    claim(hooks) {
      app = hooks;
      // Noise caught before the app's rules were known: never sent, so gone from the store too.
      const noise = pending.filter((recorded) => !hooks.keep(recorded));
      sent(noise.map((recorded) => recorded.report.id));
    },
    onReport(listener) {
      for (const recorded of pending) listener(recorded);
      listeners.push(listener);
    },
    async handOver(next, catchesUncaughtErrors) {
      if (catchesUncaughtErrors) {
        win.removeEventListener('error', onError, true);
        win.removeEventListener('unhandledrejection', onRejection);
      }
      // A report on its way without the SDK is settled, or kept, before the SDK takes the rest.
      handingOver = true;
      await sendingAlone;
      receiver = next;
      listeners.length = 0;
      const waiting = unsent();
      pending = [];
      const stored = await store.unsettled();
      const taken = new Map<string, Recorded>();
      for (const recorded of [...waiting, ...stored.map((report) => ({ report }))]) {
        if (!taken.has(recorded.report.id)) taken.set(recorded.report.id, recorded);
      }
      // Settled before the SDK sends them: from here on its offline store keeps what fails.
      store.settle([...taken.keys()]);
      const inOrder = [...taken.values()].sort((a, b) => a.report.at - b.report.at);
      for (const recorded of inOrder) next.receive(recorded);
      markHandedOver();
    },
    handedOver: () => receiver !== undefined,
    whenHandedOver: () => handedOver,
    sendWaiting: sendAlone,
  };
}
