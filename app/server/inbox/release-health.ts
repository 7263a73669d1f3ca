/**
 * Release health as Sentry shows it, from the session counts the inbox keeps (pure, so the
 * counting policy is a table test: tests/unit/server/inbox/release-health.test.ts).
 *
 * What is counted (Relay's session metrics, relay-server/src/metrics_extraction/sessions/mod.rs,
 * with `SessionLike` in relay-event-schema/src/protocol/session.rs): a session is started once
 * (`init`); it is errored when an update has `errors > 0` or any status but `ok` and `exited`
 * (`SessionStatus::is_error`), which includes `unhandled`, `crashed` and `abnormal`; each of
 * those three is counted on its own too (`unhandled` since Relay 4939: an error nobody handled
 * that did not end the process, what the browser SDK sends). An aggregate's `errored`,
 * `unhandled`, `crashed` and `abnormal` are disjoint, and its sessions are their sum with
 * `exited`.
 *
 * What is shown (Sentry's sessions API and release page: `SumSessionField` and the
 * `useCrashFreeSessions` chart): five disjoint parts of the sessions, healthy, errored (handled
 * errors only), unhandled, crashed and abnormal; the crash-free rate is 1 − crashed / sessions,
 * so an `unhandled` session is not a crash (it shows in its own part and rate).
 */

/** The counts kept per release and environment; each outcome counted once per session. */
export interface SessionCounts {
  release: string;
  environment: string;
  /** Sessions started (`init`). */
  sessions: number;
  /** Sessions that saw any error, unhandled, crashed and abnormal ones included. */
  errored: number;
  unhandled: number;
  crashed: number;
  abnormal: number;
}

/** One release's health: `sessions` is the sum of the five parts. */
export interface ReleaseHealth {
  release: string;
  environment: string;
  sessions: number;
  healthy: number;
  /** Sessions whose errors were all handled. */
  errored: number;
  unhandled: number;
  crashed: number;
  abnormal: number;
  /** 1 − crashed / sessions, 0..1, Sentry's crash-free rate; undefined without sessions. */
  crashFreeRate?: number;
  /** unhandled / sessions, 0..1; undefined without sessions. */
  unhandledRate?: number;
}

/**
 * The parts from the counts. An outcome can arrive for a session whose start was not counted
 * (it started before the inbox was cleared, or its first update was dropped): the parts are
 * taken worst first, crashed, abnormal, unhandled, errored, and none past the sessions started,
 * so that they always add up to the total shown and the rates come from the same figures.
 */
export function releaseHealthOf(counts: SessionCounts): ReleaseHealth {
  const sessions = Math.max(0, counts.sessions);
  let left = sessions;
  const take = (count: number) => {
    const taken = Math.min(Math.max(0, count), left);
    left -= taken;
    return taken;
  };
  const crashed = take(counts.crashed);
  const abnormal = take(counts.abnormal);
  const unhandled = take(counts.unhandled);
  const errored = take(counts.errored - counts.crashed - counts.abnormal - counts.unhandled);
  const health: ReleaseHealth = {
    release: counts.release,
    environment: counts.environment,
    sessions,
    healthy: left,
    errored,
    unhandled,
    crashed,
    abnormal,
  };
  if (sessions > 0) {
    health.crashFreeRate = 1 - crashed / sessions;
    health.unhandledRate = unhandled / sessions;
  }
  return health;
}
