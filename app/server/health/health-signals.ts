/**
 * What /health must not hide: the server is up, yet it turns pages away, cannot store reports,
 * or cannot reach Sentry. Each part of the server notes its own trouble here as it happens;
 * /health reads what is current. Pure state with the clock passed in; the process's one
 * instance is in ./health-signals.server.ts.
 */

export type Trouble = 'pages-shed' | 'reports-not-stored' | 'sentry-unreachable';

/**
 * How long a shed page counts after the last one: shedding has no end of its own to note.
 * The other troubles last until cleared: a store that failed is failing until a write works.
 */
export const TROUBLE_LINGERS_MS = 10_000;
const LAPSES: ReadonlySet<Trouble> = new Set(['pages-shed']);

export interface HealthSignals {
  /** The trouble happened (again); `detail` says how, for /health and the log. */
  note(trouble: Trouble, detail: string): void;
  /** It is over: a report was stored, Sentry answered. */
  clear(trouble: Trouble): void;
  /** Current troubles as `trouble: detail`, in a fixed order. */
  reasons(): string[];
}

const ORDER: readonly Trouble[] = ['pages-shed', 'reports-not-stored', 'sentry-unreachable'];

export function createHealthSignals(options: {
  now: () => number;
  /** Called when a trouble starts (not each time it recurs): one line per episode. */
  onStart(trouble: Trouble, detail: string): void;
}): HealthSignals {
  const current = new Map<Trouble, { detail: string; lastAt: number }>();
  const active = (trouble: Trouble, at: number) => {
    const seen = current.get(trouble);
    if (seen === undefined) return false;
    return !LAPSES.has(trouble) || at - seen.lastAt < TROUBLE_LINGERS_MS;
  };
  return {
    note(trouble, detail) {
      const at = options.now();
      if (!active(trouble, at)) options.onStart(trouble, detail);
      current.set(trouble, { detail, lastAt: at });
    },
    clear(trouble) {
      current.delete(trouble);
    },
    reasons() {
      const at = options.now();
      return ORDER.filter((trouble) => active(trouble, at)).map(
        (trouble) => `${trouble}: ${current.get(trouble)?.detail}`,
      );
    },
  };
}
