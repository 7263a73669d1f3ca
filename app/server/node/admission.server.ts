/**
 * Admission, one flow: which kind a request is and whether the event loop lags too much for a
 * new page (load shedding, decision 0601), then a place for each page and server-function call
 * (pages and calls wait apart, each for places of its own, decision 0604), then the built
 * server's use of both: the admissions it keeps and the 503 or 429 it answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { eventLoopWindows } from '#app/server/health/event-loop.server';
import { healthSignals } from '#app/server/health/health.server';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import { requestClientKey } from '#app/server/security/client-key';
import { createClientSlots } from '#app/server/tunnel/client-limits';
import { processShared } from '#app/start-1.120/process-shared.server';
import { serverFunctionIdFor, serverFunctionIdOf } from '#app/start-1.120/server-function-calls';
import { answerText, pathOf } from './entry-refusals';
import {
  CONCURRENT_INBOX_ACCESS_CALLS,
  CONCURRENT_RENDERS,
  CONCURRENT_SERVER_FUNCTION_CALLS,
  MAX_RENDER_WAIT_MS,
  MAX_WAITING_RENDERS,
  RENDER_TURN_BUDGET_MS,
  SERVER_FUNCTION_CALLS_PER_CLIENT,
  SERVER_FUNCTION_TURN_BUDGET_MS,
} from './server-limits.server';

/**
 * When to turn page requests away: pure policy over the measured event-loop lag, so the
 * thresholds are tested without load. Why lag, and the default: docs/decisions/0601-load-shedding.md.
 */

/** What the 503 asks a client to wait, in seconds. */
export const SHED_RETRY_AFTER_SECONDS = 2;

/**
 * Hysteresis: shedding starts when the lag passes the threshold and stops only once it is
 * back under half of it, so a server at the edge does not flip on every sample.
 */
export function nextShedding(state: {
  shedding: boolean;
  lagMs: number;
  thresholdMs: number;
}): boolean {
  const { shedding, lagMs, thresholdMs } = state;
  if (thresholdMs <= 0) return false;
  return shedding ? lagMs >= thresholdMs / 2 : lagMs > thresholdMs;
}

/**
 * Shedding after a window of lag: only a window that began once the server was warm is judged
 * (`warmAt`, on the windows' clock; undefined while the server warms up). The server's own start
 * (loading its modules, decoding its source maps, the warm-up renders, ./warm-up.server.ts) held
 * the loop for 100-750 ms a window, and a window that had any of it in it turned the first
 * visitors away. Decision 1030.
 */
export function sheddingAfterWindow(input: {
  shedding: boolean;
  window: { startedAt: number; meanMs: number };
  warmAt: number | undefined;
  thresholdMs: number;
}): boolean {
  const { shedding, window, warmAt, thresholdMs } = input;
  if (warmAt === undefined || window.startedAt < warmAt) return false;
  return nextShedding({ shedding, lagMs: window.meanMs, thresholdMs });
}

/**
 * What a request costs the server. `file`: sent as it is from the public folder or the client
 * build (cheap, and a page half-loaded is worse than none: never held back). `server-function`:
 * a call of a hydrated page, waits for its turn but is not shed for lag (the page would show
 * an error). `page`: a server render, shed first. /health and the tunnel are answered before.
 */
export type RequestKind = 'file' | 'server-function' | 'page';

export function requestKind(
  method: string | undefined,
  path: string,
  publicFiles: ReadonlySet<string>,
): RequestKind {
  if (path.startsWith('/_server')) return 'server-function';
  const read = method === 'GET' || method === 'HEAD';
  if (read && (path.startsWith('/_build/') || publicFiles.has(path))) return 'file';
  return 'page';
}

/**
 * Which places a server-function call waits for. `inbox-access`: signing in to the inbox and
 * out of it, a lane of their own, so that the operator can sign in while other callers hold
 * every place of the other lane (2–3 addresses trickling 4–8 bodies each made 8 of 9 sign-ins
 * a 503, decision 1012). `calls`: every other. Pure.
 */
export type ServerFunctionLane = 'inbox-access' | 'calls';

const INBOX_ACCESS_CALLS = new Set(
  ['signInToInbox', 'signOutOfInbox'].map((name) =>
    serverFunctionIdFor('app/server/inbox/inbox.functions.ts', name),
  ),
);

export function serverFunctionLaneOf(path: string): ServerFunctionLane {
  const id = serverFunctionIdOf(path);
  return id !== undefined && INBOX_ACCESS_CALLS.has(id) ? 'inbox-access' : 'calls';
}

/**
 * The process's event-loop lag, read from the process-wide monitor's windows
 * (../health/event-loop-windows.server.ts): how late a timer runs, which is how long any new
 * request waits before its first line of code. One per process, shared by every module copy
 * (process-shared.server.ts), started by whichever asks first.
 */
export interface LagMonitor {
  /** The mean lag of the last window, in ms. */
  lagMs(): number;
  /** Whether new page requests are being turned away now. */
  shedding(): boolean;
  /**
   * The server is warm and about to take requests: windows that begin from now on are judged.
   * Until then nothing is shed (`vinxi dev`, which sheds no page, never calls it).
   */
  warm(): void;
}

export function lagMonitor(thresholdMs: number): LagMonitor {
  return processShared('event-loop-lag', () => startMonitor(thresholdMs));
}

function startMonitor(thresholdMs: number): LagMonitor {
  let lagMs = 0;
  let shedding = false;
  let warmAt: number | undefined;
  eventLoopWindows().onWindow((window) => {
    // The mean, not the maximum: one garbage collection must not turn visitors away.
    lagMs = window.meanMs;
    shedding = sheddingAfterWindow({ shedding, window, warmAt, thresholdMs });
  });
  return {
    lagMs: () => lagMs,
    shedding: () => shedding,
    warm: () => {
      warmAt ??= performance.now();
    },
  };
}

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

/** The built server's admission of the requests that cost it work: pages and server-function calls. */
export interface RequestAdmission {
  /**
   * Runs `serve` once the page has a place, or answers 503 (lag, a full queue, a long wait).
   * `fromCache` answers it without a place when it can (the page cache, decision 1300): still
   * after the lag check, so that every page is shed alike while the server is overloaded.
   */
  admitPage(
    req: IncomingMessage,
    res: ServerResponse,
    serve: () => void,
    fromCache?: () => boolean,
  ): void;
  /** Runs `serve` once the call has a place, or answers 429 (this client's share) or 503. */
  admitServerFunction(req: IncomingMessage, res: ServerResponse, serve: () => void): void;
}

/**
 * Made once, by the built server's entry, which is loaded once per process: the two admissions
 * and the per-client call slots are that process's, outside processShared (architecture.md).
 */
export function createRequestAdmission(options: {
  maxOpenPages: number;
  loadSheddingLagMs: number;
}): RequestAdmission {
  const lag = lagMonitor(options.loadSheddingLagMs);
  // Two admissions, so that neither kind of request can hold the other's places: callers of a
  // public server function cannot keep pages from rendering, nor pages the hydrated ones' calls.
  // Each keeps its own turn budget; the calls' is the smaller, so that a flood of cheap calls
  // leaves pages most of every turn.
  const now = performance.now.bind(performance);
  const pages = createAdmission(
    {
      concurrency: CONCURRENT_RENDERS,
      maxOpen: options.maxOpenPages,
      turnBudgetMs: RENDER_TURN_BUDGET_MS,
      maxQueued: MAX_WAITING_RENDERS,
      maxWaitMs: MAX_RENDER_WAIT_MS,
    },
    now,
    setImmediate,
    waitThenRun,
  );
  const serverFunctions = createAdmission(
    {
      concurrency: CONCURRENT_SERVER_FUNCTION_CALLS,
      maxOpen: CONCURRENT_SERVER_FUNCTION_CALLS,
      turnBudgetMs: SERVER_FUNCTION_TURN_BUDGET_MS,
      maxQueued: MAX_WAITING_RENDERS,
      maxWaitMs: MAX_RENDER_WAIT_MS,
    },
    now,
    setImmediate,
    waitThenRun,
  );
  // Signing in and out: cheap calls, with places and a line of their own.
  const inboxAccess = createAdmission(
    {
      concurrency: CONCURRENT_INBOX_ACCESS_CALLS,
      maxOpen: CONCURRENT_INBOX_ACCESS_CALLS,
      turnBudgetMs: SERVER_FUNCTION_TURN_BUDGET_MS,
      maxQueued: MAX_WAITING_RENDERS,
      maxWaitMs: MAX_RENDER_WAIT_MS,
    },
    now,
    setImmediate,
    waitThenRun,
  );
  const lanes = { calls: serverFunctions, 'inbox-access': inboxAccess };
  const callsPerClient = createClientSlots(SERVER_FUNCTION_CALLS_PER_CLIENT);

  return {
    admitPage(req, res, serve, fromCache) {
      if (lag.shedding()) {
        shed(res, `event loop lag ${Math.round(lag.lagMs())} ms over LOAD_SHEDDING_LAG_MS`);
        return;
      }
      if (fromCache?.()) return;
      pages.admit({
        start: (place) => {
          res.once('close', place.release);
          // The shell is rendered when the first bytes of the body go out (Start sends the
          // response once React's shell is ready); what follows is waiting for deferred parts.
          onFirstBodyWrite(res, place.streaming);
          serve();
        },
        refuse: (reason) =>
          shed(
            res,
            `${reason} (${pages.working()} rendering, ${pages.open()} of ${options.maxOpenPages} pages open)`,
          ),
        gone: () => req.socket.destroyed,
      });
    },
    admitServerFunction(req, res, serve) {
      const client = requestClientKey(req);
      if (!callsPerClient.enter(client)) {
        warnLimited(
          'server-function call refused',
          `[server] 429 ${req.method} ${pathOf(req.url ?? '/')}: client ${client} has ${SERVER_FUNCTION_CALLS_PER_CLIENT} server-function calls running or waiting`,
          1,
        );
        res.setHeader('retry-after', '1');
        answerText(res, 429, 'Too many calls at once from this client; try again in a moment.');
        return;
      }
      res.once('close', () => callsPerClient.leave(client));
      const lane = serverFunctionLaneOf(pathOf(req.url ?? '/'));
      const places = lanes[lane];
      // The body is read before a place is taken, under the client's slot only: a body
      // trickling in for 30 s held a place all that time, and 8 of them held every place
      // (decision 1012).
      readBodyFirst(req, () =>
        places.admit({
          start: (place) => {
            res.once('close', place.release);
            serve();
          },
          refuse: (reason) =>
            shed(
              res,
              `${reason} (${places.working()} ${lane === 'calls' ? 'server-function' : 'sign-in and sign-out'} calls running)`,
              'server-function call shed',
            ),
          gone: () => req.socket.destroyed,
        }),
      );
    },
  };
}

/**
 * Reads a call's whole body (at most SERVER_FUNCTION_MAX_BODY_BYTES: the entry refused larger
 * ones and chunked ones) and keeps it where h3 looks first (`req.rawBody`), then calls `then`.
 * h3's readRawBody and the web Request Start is given read those bytes instead of the socket.
 * A body that never ends ends with its connection (Node's requestTimeout): `then` never runs,
 * and the client's slot goes back with the response's close.
 */
function readBodyFirst(req: IncomingMessage, then: () => void): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (req.method !== 'POST' || !(declared > 0)) {
    then();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  // Ignored: a client that goes away (or Node's 408) closes the response too.
  req.on('error', () => {});
  req.once('end', () => {
    (req as IncomingMessage & { rawBody?: Buffer }).rawBody = Buffer.concat(chunks);
    then();
  });
}

/** A timer that never keeps the process alive on its own. */
function waitThenRun(task: () => void, ms: number): void {
  setTimeout(task, ms).unref();
}

/** A fast 503 before any rendering: the server is busy, not broken. */
function shed(
  res: ServerResponse,
  why: string,
  kind: 'page shed' | 'server-function call shed' = 'page shed',
): void {
  healthSignals().note('pages-shed', kind === 'page shed' ? why : `server-function calls: ${why}`);
  // One line an episode; the summary a minute later says how many were turned away.
  warnLimited(kind, `[server] 503 ${res.req.method} ${pathOf(res.req.url ?? '/')}: ${why}`, 1);
  res.setHeader('retry-after', String(SHED_RETRY_AFTER_SECONDS));
  answerText(res, 503, 'The server is busy; try again in a moment.');
}

/**
 * Calls `then` once, at the response's first body write. Node has no event for it, so this
 * response's own `write` is wrapped for that one call, then the prototype's is back.
 */
function onFirstBodyWrite(res: ServerResponse, then: () => void): void {
  const own = res as { write: ServerResponse['write'] };
  own.write = ((...args: Parameters<ServerResponse['write']>) => {
    delete (own as { write?: unknown }).write;
    then();
    return res.write(...args);
  }) as ServerResponse['write'];
}
