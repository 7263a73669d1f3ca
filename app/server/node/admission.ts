/**
 * When requests of one kind (page renders, or server-function calls: each kind has its own
 * admission, so neither can take the other's places) may start. Past either limit below,
 * requests wait in line (their bodies unread, so a waiting request costs a socket and little
 * memory); when the line is full, or a request has waited too long, it is refused with a 503.
 *
 * - `concurrency`: requests working at once. A render that waits on I/O (a loader's database
 *   call) holds its place, so a slow dependency cannot pile up unbounded work. A page stops
 *   working once its shell is sent (`streaming`): what is left is waiting for its deferred
 *   parts, and a place held for waiting let a few slow pages or callers starve every page.
 * - `maxOpen`: requests open at once, working or streaming: streams cost a connection and the
 *   page's state until they end, so they are bounded too, far above `concurrency`.
 * - `turnBudgetMs`: how long starts may keep one turn of the event loop. A render is a chain
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
  /** Requests working (rendering, running) at once. */
  concurrency: number;
  /** Requests open at once, working or streaming; at least `concurrency`. */
  maxOpen: number;
  /** Requests stop starting in a turn of the event loop once this much of it has passed. */
  turnBudgetMs: number;
  /** Requests that may wait for a place. */
  maxQueued: number;
  /** A request that waited longer than this is refused when its turn comes. */
  maxWaitMs: number;
}

/** What a started request holds, and gives back. */
export interface Place {
  /** Its work is done and only its response is still being sent: the working place goes. */
  streaming(): void;
  /** Its response is done: every place it held goes. Calls after the first do nothing. */
  release(): void;
}

export interface Waiting {
  /** Runs the request; it must call `place.release` exactly once when its response is done. */
  start(place: Place): void;
  /** Answers the request with a 503. */
  refuse(reason: 'queue full' | 'waited too long'): void;
  /** The client went away while waiting: neither start nor refuse it. */
  gone(): boolean;
}

export interface Admission {
  admit(request: Waiting): void;
  /** Requests working now. */
  working(): number;
  /** Requests open now: working or streaming. */
  open(): number;
  queued(): number;
}

export function createAdmission(
  limits: AdmissionLimits,
  now: () => number,
  defer: (task: () => void) => void,
  /**
   * Runs `task` after `ms`: a request that has waited `maxWaitMs` is refused then, even when no
   * place is given back (8 calls whose bodies trickle held every place for 30 s, and the line
   * waited with them). Without it, a wait is judged only when the line moves.
   */
  later?: (task: () => void, ms: number) => void,
): Admission {
  let expiryArmed = false;
  let working = 0;
  let open = 0;
  // When this turn's first start happened; undefined until one does.
  let turnStartedAt: number | undefined;
  let drainScheduled = false;
  const line: Array<{ request: Waiting; since: number }> = [];
  // A ring buffer would avoid shift()'s copy; the line is at most a few hundred long.

  /** Whether a request may start in this turn. Its first start schedules the turn's end. */
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

  /** Wakes when the head of the line will have waited too long, to refuse it then. */
  const armExpiry = () => {
    const head = line[0];
    if (!later || expiryArmed || head === undefined) return;
    expiryArmed = true;
    later(
      () => {
        expiryArmed = false;
        startNext();
        armExpiry();
      },
      Math.max(1, head.since + limits.maxWaitMs + 1 - now()),
    );
  };

  const hasRoom = () => working < limits.concurrency && open < limits.maxOpen;

  const run = (request: Waiting) => {
    working++;
    open++;
    let stage: 'working' | 'streaming' | 'done' = 'working';
    request.start({
      streaming: () => {
        if (stage !== 'working') return;
        stage = 'streaming';
        working--;
        startNext();
      },
      release: () => {
        if (stage === 'done') return;
        if (stage === 'working') working--;
        stage = 'done';
        open--;
        startNext();
      },
    });
  };

  /**
   * Starts the first request of the line, if it may start now. One at a time: `start` only
   * sets a request going, and its work runs after this returns, so the budget can only be
   * judged once it has run. The next start comes from a place given back (a shell sent, a
   * response done), or from a later drain.
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
    // A full house resumes when a place is given back; a spent turn with the drain withinTurn scheduled.
    const first = line[0];
    if (first === undefined || !hasRoom() || !withinTurn()) return;
    line.shift();
    run(first.request);
    if (line.length > 0 && hasRoom()) scheduleDrain();
  };

  return {
    admit(request) {
      if (hasRoom() && line.length === 0 && withinTurn()) {
        run(request);
        return;
      }
      if (line.length >= limits.maxQueued) {
        request.refuse('queue full');
        return;
      }
      line.push({ request, since: now() });
      scheduleDrain();
      armExpiry();
    },
    working: () => working,
    open: () => open,
    queued: () => line.length,
  };
}
