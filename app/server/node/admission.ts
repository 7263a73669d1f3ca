/**
 * How many page renders and server-function calls run at once. Past the limit, requests wait
 * in line (their bodies unread, so a waiting request costs a socket and little memory); when
 * the line is full, or a request has waited too long, it is refused with a 503.
 *
 * Why: Node interleaves every render in flight, so each one started under load makes all of
 * them, and every probe and report queued behind them, slower. Measured with 64 clients on
 * /about, an unbounded server answered /health after seconds; with a few renders at a time the
 * rest of the work (health, the tunnel) gets the event loop between them
 * (docs/decisions/0601-load-shedding.md). Pure state, clock passed in: tested without a server.
 */

export interface AdmissionLimits {
  /** Renders and calls running at once. */
  concurrency: number;
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

export function createAdmission(limits: AdmissionLimits, now: () => number): Admission {
  let running = 0;
  const line: Array<{ request: Waiting; since: number }> = [];
  // A ring buffer would avoid shift()'s copy; the line is at most a few hundred long.

  const run = (request: Waiting) => {
    running++;
    let released = false;
    request.start(() => {
      if (released) return;
      released = true;
      running--;
      next();
    });
  };

  const next = () => {
    while (running < limits.concurrency && line.length > 0) {
      const { request, since } = line.shift() as { request: Waiting; since: number };
      if (request.gone()) continue;
      if (now() - since > limits.maxWaitMs) {
        request.refuse('waited too long');
        continue;
      }
      run(request);
    }
  };

  return {
    admit(request) {
      if (running < limits.concurrency && line.length === 0) {
        run(request);
        return;
      }
      if (line.length >= limits.maxQueued) {
        request.refuse('queue full');
        return;
      }
      line.push({ request, since: now() });
    },
    inFlight: () => running,
    queued: () => line.length,
  };
}
