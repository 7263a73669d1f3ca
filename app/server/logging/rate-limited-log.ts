import { processShared } from '../../start-1.120/process-shared.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'rate-limited-logs': { warn: RateLimitedLog; error: RateLimitedLog };
  }
}
/**
 * Log lines that a client can cause (a rejected tunnel post, a failed sign-in, a shed page, a
 * refused connection) must not let that client write the disk full: 46,000 rejected posts in
 * 10 s once made 46,000 lines. Each kind of line gets at most `linesPerWindow` lines per
 * window; past that they are counted, and when the window ends one line says how many were
 * suppressed. A kind is a fixed label ("tunnel 400", "sign-in failed"), never request input.
 *
 * Pure state with the clock and timer passed in, so it is tested without waiting.
 */

export interface RateLimitedLogOptions {
  /** Lines of one kind written per window before the rest are only counted. */
  linesPerWindow: number;
  windowMs: number;
  write(line: string): void;
  now?: () => number;
  /** Runs `task` after `ms`; the default is an unref'd setTimeout (it never keeps the process up). */
  schedule?: (task: () => void, ms: number) => void;
}

/**
 * Writes `line` unless its kind is over its budget for this window: `linesPerWindow`, or
 * `budget` for a kind that says enough in fewer lines (a shed page: one line an episode).
 */
export type RateLimitedLog = (kind: string, line: string, budget?: number) => void;

interface KindWindow {
  startedAt: number;
  written: number;
  suppressed: number;
}

export function createRateLimitedLog(options: RateLimitedLogOptions): RateLimitedLog {
  const { linesPerWindow, windowMs, write } = options;
  const now = options.now ?? Date.now;
  const schedule =
    options.schedule ??
    ((task: () => void, ms: number) => {
      setTimeout(task, ms).unref();
    });
  const windows = new Map<string, KindWindow>();

  /** Ends a kind's window: one summary line if anything was suppressed in it. */
  const close = (kind: string, window: KindWindow) => {
    if (windows.get(kind) !== window) return;
    windows.delete(kind);
    if (window.suppressed > 0) {
      const seconds = Math.round(windowMs / 1000);
      write(`[log] suppressed ${window.suppressed} more "${kind}" lines in the last ${seconds} s`);
    }
  };

  return (kind, line, budget = linesPerWindow) => {
    const at = now();
    let window = windows.get(kind);
    if (window && at - window.startedAt >= windowMs) {
      close(kind, window);
      window = undefined;
    }
    if (!window) {
      const opened: KindWindow = { startedAt: at, written: 0, suppressed: 0 };
      windows.set(kind, opened);
      schedule(() => close(kind, opened), windowMs);
      window = opened;
    }
    if (window.written < budget) {
      window.written++;
      write(line);
    } else {
      window.suppressed++;
    }
  };
}

/** Per kind, per minute: enough to see an attack's shape, far from a disk's worth. */
export const LINES_PER_KIND_PER_MINUTE = 20;

/**
 * The process's own limited logs on stderr: `warnLimited` for refusals, `errorLimited` for
 * failures. Every line a request can cause goes through one of them, with a fixed kind.
 */
export function warnLimited(kind: string, line: string, budget?: number): void {
  processLogs().warn(kind, line, budget);
}

export function errorLimited(kind: string, line: string, budget?: number): void {
  processLogs().error(kind, line, budget);
}

function processLogs(): { warn: RateLimitedLog; error: RateLimitedLog } {
  return processShared('rate-limited-logs', () => {
    const limited = (write: (text: string) => void) =>
      createRateLimitedLog({ linesPerWindow: LINES_PER_KIND_PER_MINUTE, windowMs: 60_000, write });
    return {
      warn: limited((text) => console.warn(text)),
      error: limited((text) => console.error(text)),
    };
  });
}
