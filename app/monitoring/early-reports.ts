/**
 * The first monitoring code the page runs, before the Sentry SDK, which loads after hydration
 * (docs/decisions/0910-sentry-sdk-after-hydration.md): Sentry's own loader pattern, from our
 * origin. Uncaught errors and unhandled rejections are caught here from the first script on, and
 * what the app reports itself (the error boundary, CSP violations) comes here too. Until the SDK
 * takes over (`handOver`), reports wait, in order, with the original Error objects and the time
 * they happened; then they are replayed into the SDK and everything goes straight to it.
 * Imports no SDK code: it must stay a few hundred bytes.
 */
import { isWorthSending } from './early-envelope';

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

/** One report, `at` in seconds since the epoch (Sentry's event timestamp). */
export type EarlyReport =
  | { kind: 'error'; event: ErrorEvent; at: number }
  | { kind: 'rejection'; event: PromiseRejectionEvent; at: number }
  | { kind: 'exception'; error: unknown; mechanism: ReportMechanism; eventId: string; at: number }
  | { kind: 'message'; message: string; context: MessageContext; eventId: string; at: number };

/** Where reports go once something can send them: the SDK, or the envelope fallback. */
export interface ReportReceiver {
  receive(report: EarlyReport): void;
}

/**
 * Reports that wait, here until the SDK takes over and then in its transport while earlier ones
 * are in flight (browser-options.ts), past which new ones are dropped: 64, above the browser
 * SDK's 40, so a burst of errors is not cut short (tests/e2e/browser-reporting.spec.ts sends 100
 * and counts 64). Defined here, not beside the SDK options: this module imports no SDK code.
 */
export const REPORT_QUEUE_SIZE = 64;

export interface EarlyReports {
  /** Reports a caught error; returns the id its event will have. */
  captureException(error: unknown, mechanism: ReportMechanism): string;
  captureMessage(message: string, context: MessageContext): string;
  /** How many reports wait for a receiver. */
  pendingCount(): number;
  /** Takes the waiting reports out (to send them some other way); they are not replayed. */
  takePending(): EarlyReport[];
  /**
   * From now on `receiver` gets every report: the waiting ones first, in order. When it catches
   * uncaught errors itself (the SDK's global handlers), this stops listening for them.
   */
  handOver(receiver: ReportReceiver, catchesUncaughtErrors: boolean): void;
  /** Whether a receiver has taken over. */
  handedOver(): boolean;
  /** Resolves once a receiver has taken over (never, if none does). */
  whenHandedOver(): Promise<void>;
  /**
   * Calls `listener` with each report kept to wait for a receiver, from now on, after those that
   * wait already.
   */
  onReport(listener: (report: EarlyReport) => void): void;
}

type Target = Pick<Window, 'addEventListener' | 'removeEventListener'>;

/**
 * @param worthKeeping which reports wait for a receiver: the page passes the SDK's noise rules
 *   (early-envelope.ts), so that noise, which the SDK would drop anyway, never takes one of the
 *   64 places while nothing sends (a ResizeObserver notice can come every frame, and the SDK
 *   may not load for a long time, decision 0950).
 */
export function recordEarlyReports(
  target: Target,
  now: () => number = () => Date.now() / 1000,
  newEventId: () => string = randomEventId,
  worthKeeping: (report: EarlyReport) => boolean = () => true,
): EarlyReports {
  let pending: EarlyReport[] = [];
  let receiver: ReportReceiver | undefined;
  let markHandedOver = () => {};
  const handedOver = new Promise<void>((resolve) => {
    markHandedOver = resolve;
  });
  const listeners: Array<(report: EarlyReport) => void> = [];

  const add = (report: EarlyReport) => {
    // The SDK, once it has taken over, applies its own filters.
    if (receiver) {
      receiver.receive(report);
      return;
    }
    if (!worthKeeping(report)) return;
    for (const listener of listeners) listener(report);
    if (pending.length < REPORT_QUEUE_SIZE) pending.push(report);
  };
  const onError = (event: Event) => add({ kind: 'error', event: event as ErrorEvent, at: now() });
  const onRejection = (event: Event) =>
    add({ kind: 'rejection', event: event as PromiseRejectionEvent, at: now() });
  target.addEventListener('error', onError);
  target.addEventListener('unhandledrejection', onRejection);

  return {
    captureException(error, mechanism) {
      const eventId = newEventId();
      add({ kind: 'exception', error, mechanism, eventId, at: now() });
      return eventId;
    },
    captureMessage(message, context) {
      const eventId = newEventId();
      add({ kind: 'message', message, context, eventId, at: now() });
      return eventId;
    },
    pendingCount: () => pending.length,
    takePending() {
      const taken = pending;
      pending = [];
      return taken;
    },
    handOver(next, catchesUncaughtErrors) {
      if (catchesUncaughtErrors) {
        target.removeEventListener('error', onError);
        target.removeEventListener('unhandledrejection', onRejection);
      }
      receiver = next;
      for (const report of this.takePending()) next.receive(report);
      markHandedOver();
    },
    handedOver: () => receiver !== undefined,
    whenHandedOver: () => handedOver,
    onReport(listener) {
      for (const report of pending) listener(report);
      listeners.push(listener);
    },
  };
}

/** Sentry's event id: 32 lowercase hex digits (crypto.randomUUID needs a secure context). */
export function randomEventId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

let pageReports: EarlyReports | undefined;

/**
 * Starts recording for this page: the first thing app/client.tsx does. Also reachable as
 * `window.__earlyReports`, so that browser tests can tell that the page is listening.
 */
export function startEarlyReports(page: Window): EarlyReports {
  pageReports ??= recordEarlyReports(page, undefined, undefined, isWorthSending);
  Reflect.set(page, '__earlyReports', pageReports);
  return pageReports;
}

/** The page's recorder, once started (never on the server). */
export function earlyReports(): EarlyReports | undefined {
  return pageReports;
}
