/**
 * When page renders and server-function calls may start. Past either limit below, requests
 * wait in line (their bodies unread, so a waiting request costs a socket and little memory);
 * when the line is full, or a request has waited too long, it is refused with a 503.
 *
 * - `concurrency`: renders running at once. A render that waits on I/O (a loader's database
 *   call) holds its place, so a slow dependency cannot pile up unbounded work.
 * - `turnBudgetMs`: how long renders may keep one turn of the event loop. A render is a chain
 *   of promises, and Node reads every ready socket in one turn: without this budget, a turn
 *   renders one request from every connection, back to back (64 clients on /about made turns
 *   of 250 ms). Node accepts one new connection per turn, so /health, the tunnel and every new
 *   visitor waited behind all of it, for seconds. Past the budget, the rest of the line starts
 *   in later turns (`defer`, setImmediate in the server), after Node has read and accepted
 *   (docs/decisions/0601-load-shedding.md).
 *
 * Pure state; clock and scheduler passed in, so it is tested without a server.
 */

export interface AdmissionLimits {
  /** Renders and calls running at once. */
  concurrency: number;
  /** Renders stop starting in a turn of the event loop once this much of it has passed. */
  turnBudgetMs: number;
  /** Requests that may wait for a place. */
  maxQueued: number;
  /** A request that waited longer than this is refused when its turn comes. */
  maxWaitMs: number;
}

export interface Waiting {
  /** Runs the request; it must call `release` exactly once when its response is done. */
  start(release: () => void): void;
  /** Answers the request with a 503. */
  refuse(reason: 'queue full' | 'waited too long'): void;
  /** The client went away while waiting: neither start nor refuse it. */
  gone(): boolean;
}

export interface Admission {
  admit(request: Waiting): void;
  inFlight(): number;
  queued(): number;
}

export function createAdmission(
  limits: AdmissionLimits,
  now: () => number,
  defer: (task: () => void) => void,
): Admission {
  let running = 0;
  // When this turn's first render started; undefined until one does.
  let turnStartedAt: number | undefined;
  let drainScheduled = false;
  const line: Array<{ request: Waiting; since: number }> = [];
  // A ring buffer would avoid shift()'s copy; the line is at most a few hundred long.

  /** Whether a render may start in this turn. Its first start schedules the turn's end. */
  const withinTurn = (): boolean => {
    const time = now();
    if (turnStartedAt === undefined) {
      turnStartedAt = time;
      scheduleDrain();
      return true;
    }
    return time - turnStartedAt < limits.turnBudgetMs;
  };

  const scheduleDrain = () => {
    if (drainScheduled) return;
    drainScheduled = true;
    defer(drain);
  };

  /** A later turn: a fresh budget, and the line moves on. */
  const drain = () => {
    drainScheduled = false;
    turnStartedAt = undefined;
    startNext();
  };

  const run = (request: Waiting) => {
    running++;
    let released = false;
    request.start(() => {
      if (released) return;
      released = true;
      running--;
      startNext();
    });
  };

  /**
   * Starts the first request of the line, if it may start now. One at a time: `start` only
   * sets a render going, and its work runs after this returns, so the budget can only be
   * judged once it has run. The next start comes from its release, or from a later drain.
   */
  const startNext = () => {
    for (let head = line[0]; head !== undefined; head = line[0]) {
      if (head.request.gone()) {
        line.shift();
      } else if (now() - head.since > limits.maxWaitMs) {
        line.shift();
        head.request.refuse('waited too long');
      } else {
        break;
      }
    }
    // A full house resumes with a release; a spent turn with the drain withinTurn scheduled.
    const first = line[0];
    if (first === undefined || running >= limits.concurrency || !withinTurn()) return;
    line.shift();
    run(first.request);
    if (line.length > 0 && running < limits.concurrency) scheduleDrain();
  };

  return {
    admit(request) {
      if (running < limits.concurrency && line.length === 0 && withinTurn()) {
        run(request);
        return;
      }
      if (line.length >= limits.maxQueued) {
        request.refuse('queue full');
        return;
      }
      line.push({ request, since: now() });
      scheduleDrain();
    },
    inFlight: () => running,
    queued: () => line.length,
  };
}
