/**
 * The main thread's side of the inbox's ingest thread (./ingest-worker.ts): one thread per
 * process, started on first use, that validates, groups and stores each envelope and answers
 * once per envelope.
 *
 * - An ingest resolves only once the envelope is durably stored (or counted); it rejects with an
 *   IngestError whose code says how to answer: `rejected` (400, Relay would refuse it),
 *   `busy` (503), anything else (500).
 * - A thread that stops (a crash) fails every ingest it had with `stopped`, is logged once, and
 *   the next ingest starts a new one. A thread that does not answer within `timeoutMs` fails
 *   that ingest too.
 * - Envelopes wait on this thread, shared fairly between clients (`createFairQueue`, below), and go
 *   to the thread `maxInThread` at a time, the clients in turn. A client past its share is
 *   refused at once (`over-share`, 429), as is one pushed out for a client with fewer waiting;
 *   a queue full of equals refuses the newcomer (`busy`, 503), and so does a wait past
 *   `maxWaitMs`: a refusal the SDK keeps and retries beats an answer after 10 s.
 * - The thread keeps the process alive only while it has work; `settled()` lets a shutdown wait.
 * - `upkeep()` asks it to go on with a clear or deletes asked for (decision 1001); what it tells besides
 *   its answers (issues evicted at the cap) goes to `onNotice`.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { warnLimited } from '#app/server/logging/rate-limited-log';
import {
  asTransferable,
  BUILT_WORKER_FILE,
  INGEST_BUSY,
  INGEST_OVER_SHARE,
  INGEST_STOPPED,
  type IngestAnswer,
  IngestError,
  type IngestNotice,
  type IngestThreadData,
  isIngestNotice,
  type UpkeepRequest,
} from './ingest-protocol';

/**
 * Envelopes waiting at once, all clients together. The tunnel's receive budget bounds their
 * bytes; this and the wait below bound how long a report waits.
 */
export const MAX_PENDING_INGESTS = 1024;
/**
 * Envelopes one client may have waiting: half the queue, so that a client alone never fills it
 * (another finds room without pushing anyone out), while a burst from one client, or from a
 * proxy's many visitors, still fits. What keeps clients fair under a flood is the order they are
 * served in and who is pushed out (`createFairQueue`), not this.
 */
export const INGEST_SHARE_PER_CLIENT = MAX_PENDING_INGESTS / 2;
/**
 * Envelopes handed to the thread at once: enough for batches worth their one commit each, few
 * enough that a report taken in its client's turn waits behind a fraction of a second of work.
 * The thread is topped up once half of them are answered, so that the next batch is already
 * waiting when one ends: handed on one by one as answers came, batches shrank to an envelope or
 * two, a commit each, and ingest slowed down.
 */
export const MAX_INGESTS_IN_THREAD = 64;
/**
 * The longest an envelope waits for its turn before it is refused (503, Retry-After): the
 * clients in turn keep a visitor's wait far below this; a client with many waiting meets it.
 */
export const MAX_INGEST_WAIT_MS = 5_000;
/** An ingest the thread has not answered by then fails: a disk that hangs must not hang requests. */
export const INGEST_TIMEOUT_MS = 10_000;
/** The client the server's own reports (and the file store's import) count as. */
export const SERVER_CLIENT = 'server';

export interface IngestThread {
  /**
   * Stores one envelope of `client` (its `clientKeyOf` key; SERVER_CLIENT by default); the
   * bytes are moved to the thread when they are the whole of their buffer.
   */
  ingest(bytes: Uint8Array, receivedAt: number, client?: string): Promise<{ eventId?: string }>;
  /** Starts the thread now (it takes tens of ms to boot), so that the first ingest need not wait. */
  start(): void;
  pending(): number;
  settled(timeoutMs: number): Promise<'settled' | 'timed-out'>;
  /** Asks the thread to go on with the inbox's upkeep; resolves when none is left to do. */
  upkeep(): Promise<void>;
  close(): Promise<void>;
}

export interface IngestThreadOptions extends IngestThreadData {
  /** The worker's module; the built one beside the server, or the source (development, tests). */
  workerFile?: string;
  maxPending?: number;
  perClient?: number;
  maxInThread?: number;
  maxWaitMs?: number;
  timeoutMs?: number;
  /** What the thread tells besides its answers. */
  onNotice?: (notice: IngestNotice) => void;
}

interface Pending {
  thread: Worker;
  timer: NodeJS.Timeout;
  settle(answer: IngestAnswer): void;
}

/** An envelope waiting for its turn, on this thread. */
interface Queued {
  bytes: Uint8Array<ArrayBuffer>;
  receivedAt: number;
  client: string;
  /** Refuses it once it has waited maxWaitMs; set once it waits. */
  waitTimer?: NodeJS.Timeout;
  refuse(error: IngestError): void;
  /** Hands it to the thread; its answer settles the ingest. */
  send(): void;
}

export function createIngestThread(options: IngestThreadOptions): IngestThread {
  const maxPending = options.maxPending ?? MAX_PENDING_INGESTS;
  const maxInThread = options.maxInThread ?? MAX_INGESTS_IN_THREAD;
  const maxWaitMs = options.maxWaitMs ?? MAX_INGEST_WAIT_MS;
  const timeoutMs = options.timeoutMs ?? INGEST_TIMEOUT_MS;
  const waiting = createFairQueue<Queued>({
    maxQueued: maxPending,
    perClient: options.perClient ?? INGEST_SHARE_PER_CLIENT,
  });
  // Handed to a thread, until it answers.
  const pending = new Map<number, Pending>();
  const waitingForIdle = new Set<() => void>();
  const waitingForUpkeep = new Set<() => void>();
  let thread: Worker | undefined;
  let nextId = 0;

  const finish = (answer: IngestAnswer) => {
    const entry = pending.get(answer.id);
    if (!entry) return;
    pending.delete(answer.id);
    clearTimeout(entry.timer);
    entry.settle(answer);
    handOn();
    if (pending.size > 0) return;
    entry.thread.unref();
    for (const wake of waitingForIdle) wake();
  };

  /** Gives the thread the next envelopes in turn, once it has room for half of them. */
  const handOn = () => {
    if (pending.size > maxInThread / 2) return;
    while (pending.size < maxInThread) {
      const next = waiting.take();
      if (!next) return;
      clearTimeout(next.waitTimer);
      next.send();
    }
  };

  const start = (): Worker => {
    const started = workerFor(options);
    let failure: string | undefined;
    started.on('message', finish);
    started.on('message', (message: unknown) => {
      if (!isIngestNotice(message)) return;
      if (message.kind === 'upkeep-done') {
        for (const wake of waitingForUpkeep) wake();
        waitingForUpkeep.clear();
      }
      options.onNotice?.(message);
    });
    // Without a listener an error in the thread would be thrown in the server's main thread.
    started.on('error', (error) => {
      failure = error.message;
    });
    started.on('exit', (code) => {
      if (thread === started) thread = undefined;
      const message = `the inbox ingest thread stopped (${failure ?? `exit code ${code}`})`;
      let lost = 0;
      for (const [id, entry] of pending) {
        if (entry.thread !== started) continue;
        lost++;
        finish({ id, ok: false, code: INGEST_STOPPED, message });
      }
      if (failure !== undefined || lost > 0)
        warnLimited('inbox thread stopped', `[inbox] ${message}`);
      // Those still waiting go to the next thread.
      handOn();
    });
    // After the listeners: adding a 'message' listener refs the thread again.
    started.unref();
    return started;
  };

  /** Posts one envelope to the thread (started if need be); its answer settles it. */
  const post = (queued: Queued, settle: Pending['settle']) => {
    thread ??= start();
    const current = thread;
    const id = nextId++;
    const timer = setTimeout(() => {
      // Still pending until the thread answers: it is still busy with it.
      queued.refuse(new IngestError('timeout', `the inbox did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    timer.unref();
    pending.set(id, { thread: current, timer, settle });
    // Alive while it has work, never otherwise.
    if (pending.size === 1) current.ref();
    try {
      current.postMessage({ id, bytes: queued.bytes, receivedAt: queued.receivedAt }, [
        queued.bytes.buffer,
      ]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      finish({ id, ok: false, code: 'failed', message });
    }
  };

  return {
    ingest(bytes, receivedAt, client = SERVER_CLIENT) {
      return new Promise((resolve, reject) => {
        const queued: Queued = {
          bytes: asTransferable(bytes),
          receivedAt,
          client,
          refuse: reject,
          send: () =>
            post(queued, (answer) =>
              answer.ok
                ? resolve(answer.eventId ? { eventId: answer.eventId } : {})
                : reject(new IngestError(answer.code, answer.message, answer.status)),
            ),
        };
        const offered = waiting.offer(client, queued);
        if (offered.kind !== 'queued') {
          reject(
            offered.kind === 'client'
              ? overShare(client, waiting.waitingOf(client))
              : new IngestError(
                  INGEST_BUSY,
                  `the local inbox has ${waiting.size()} envelopes waiting already`,
                ),
          );
          return;
        }
        const pushed = offered.pushedOut;
        if (pushed) {
          clearTimeout(pushed.waitTimer);
          pushed.refuse(overShare(pushed.client, waiting.waitingOf(pushed.client) + 1));
        }
        const waitTimer = setTimeout(() => {
          if (!waiting.remove(client, queued)) return;
          reject(
            new IngestError(
              INGEST_BUSY,
              `an envelope of client ${client} waited ${maxWaitMs} ms for its turn`,
            ),
          );
        }, maxWaitMs);
        waitTimer.unref();
        queued.waitTimer = waitTimer;
        handOn();
      });
    },
    start() {
      thread ??= start();
    },
    pending: () => pending.size + waiting.size(),
    settled(waitMs) {
      if (pending.size + waiting.size() === 0) return Promise.resolve('settled');
      return new Promise((resolve) => {
        const done = (outcome: 'settled' | 'timed-out') => {
          clearTimeout(timer);
          waitingForIdle.delete(onIdle);
          resolve(outcome);
        };
        const onIdle = () => done('settled');
        const timer = setTimeout(() => done('timed-out'), waitMs);
        timer.unref();
        waitingForIdle.add(onIdle);
      });
    },
    upkeep() {
      thread ??= start();
      const current = thread;
      return new Promise<void>((resolve) => {
        waitingForUpkeep.add(resolve);
        const request: UpkeepRequest = { kind: 'upkeep' };
        current.postMessage(request);
      });
    },
    async close() {
      const stopping = thread;
      thread = undefined;
      await stopping?.terminate();
    },
  };
}

/** A client past its share of the queue: 429, and the SDK keeps the envelope and waits. */
function overShare(client: string, waitingOf: number): IngestError {
  return new IngestError(
    INGEST_OVER_SHARE,
    `client ${client} has ${waitingOf} envelopes waiting to be stored, its share of the local inbox's queue`,
  );
}

function workerFor(options: IngestThreadOptions): Worker {
  const workerData: IngestThreadData = {
    databasePath: options.databasePath,
    maxEvents: options.maxEvents,
    maxMb: options.maxMb,
    ...(options.buildOutput ? { buildOutput: options.buildOutput } : {}),
    ...(options.alerts ? { alerts: options.alerts } : {}),
  };
  const file = options.workerFile ?? defaultWorkerFile();
  return new Worker(file, { workerData, name: 'inbox-ingest' });
}

/**
 * The built thread when this module runs from the build (a chunk under `.output/server`), else
 * the source beside this file.
 */
function defaultWorkerFile(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    const built = join(dir, BUILT_WORKER_FILE);
    if (existsSync(built)) return built;
    dir = dirname(dir);
  }
  // The source, through tsx (./ingest-worker-source.mjs), which development and the tests have.
  return fileURLToPath(new URL('./ingest-worker-source.mjs', import.meta.url));
}

// The ingest queue shared fairly between clients (docs/decisions/1010-ingest-queue-shared-fairly.md).
// Envelopes wait here, on the main thread, before they go to the ingest thread; the thread is
// handed a few at a time, taken from the clients in turn. One queue, first come first served,
// let 30 addresses each under its own rate fill all 1,024 places: a visitor's report waited
// behind all of them (p50 7.4 s) or was refused, 48% accepted.
//*
// - Each client (`clientKeyOf`: an IPv4 address, an IPv6 /64; the server's own reports are one
//   more) may have `perClient` envelopes waiting; past that its next is refused ('client').
// - When the queue holds `maxQueued`, a client with fewer waiting than the client with the
//   most takes the newest of that one's places ("longest queue drop"): the one pushed out is
//   refused instead. Only a client with as many waiting as anyone is refused ('full').
// - Clients are served in rounds, one envelope each, so an envelope waits behind at most one of
//   each other client's, however many those have waiting; a client with nothing waiting joins
//   the round being served, and in a round, clients with fewer waiting go first.
// Pure: the caller owns the items, their timers and answers.

export interface IngestShareLimits {
  /** Envelopes waiting at once, all clients together. */
  maxQueued: number;
  /** Envelopes one client may have waiting. */
  perClient: number;
}

export type Offered<T> =
  /** Waiting; `pushedOut` (another client's newest) was taken out to make room: refuse it. */
  | { kind: 'queued'; pushedOut?: T }
  /** The client has `perClient` waiting already. */
  | { kind: 'client' }
  /** Everyone waiting has at most as many as this client would: nothing to push out. */
  | { kind: 'full' };

export interface FairQueue<T> {
  offer(client: string, item: T): Offered<T>;
  /** The next envelope to hand on: of the round being served, the client with fewest waiting's oldest. */
  take(): T | undefined;
  /** Takes out an envelope still waiting (its wait ran out); false when it is not waiting. */
  remove(client: string, item: T): boolean;
  size(): number;
  waitingOf(client: string): number;
}

export function createFairQueue<T>(limits: IngestShareLimits): FairQueue<T> {
  // Start-time fair queuing (Goyal et al., 1996) with every envelope costing one: an envelope's
  // tag is the round it belongs to, its client's previous one's plus one, never behind the round
  // being served (`round`); the smallest tag goes first. A client that had nothing waiting joins
  // the current round, and within a round the client with fewer waiting goes first: a visitor's
  // one report waits behind a round's worth of envelopes at most, usually none.
  const lines = new Map<string, Line<T>>();
  let round = 0;
  let size = 0;
  let arrivals = 0;

  const emptied = (client: string, line: Line<T>) => {
    if (line.waiting.length === 0) lines.delete(client);
  };

  /** The client with the most waiting, the earliest to arrive among equals. */
  const longest = (): [string, Line<T>] | undefined => {
    let best: [string, Line<T>] | undefined;
    for (const entry of lines) {
      if (!best || entry[1].waiting.length > best[1].waiting.length) best = entry;
    }
    return best;
  };

  /** Whether `a`'s next envelope goes before `b`'s. */
  const before = (a: Line<T>, b: Line<T>): boolean => {
    const [x, y] = [a.waiting[0] as Tagged<T>, b.waiting[0] as Tagged<T>];
    if (x.tag !== y.tag) return x.tag < y.tag;
    if (a.waiting.length !== b.waiting.length) return a.waiting.length < b.waiting.length;
    return x.arrival < y.arrival;
  };

  return {
    offer(client, item) {
      const line = lines.get(client);
      const waiting = line?.waiting.length ?? 0;
      if (waiting >= limits.perClient) return { kind: 'client' };
      let pushedOut: T | undefined;
      if (size >= limits.maxQueued) {
        const most = longest();
        // Only from a client that would still have more waiting than this one.
        if (!most || most[1].waiting.length <= waiting + 1) return { kind: 'full' };
        const newest = most[1].waiting.pop() as Tagged<T>;
        most[1].next = newest.tag;
        pushedOut = newest.item;
        size--;
        emptied(most[0], most[1]);
      }
      const own = lines.get(client) ?? { waiting: [], next: round };
      lines.set(client, own);
      const tag = Math.max(round, own.next);
      own.next = tag + 1;
      own.waiting.push({ item, tag, arrival: arrivals++ });
      size++;
      return pushedOut === undefined ? { kind: 'queued' } : { kind: 'queued', pushedOut };
    },
    take() {
      let first: [string, Line<T>] | undefined;
      for (const entry of lines) if (!first || before(entry[1], first[1])) first = entry;
      if (!first) return undefined;
      const [client, line] = first;
      const taken = line.waiting.shift() as Tagged<T>;
      round = taken.tag;
      size--;
      emptied(client, line);
      return taken.item;
    },
    remove(client, item) {
      const line = lines.get(client);
      const at = line?.waiting.findIndex((tagged) => tagged.item === item) ?? -1;
      if (!line || at === -1) return false;
      line.waiting.splice(at, 1);
      size--;
      emptied(client, line);
      return true;
    },
    size: () => size,
    waitingOf: (client) => lines.get(client)?.waiting.length ?? 0,
  };
}

interface Tagged<T> {
  item: T;
  /** The round it belongs to. */
  tag: number;
  /** Arrival order, the last tie-break. */
  arrival: number;
}

interface Line<T> {
  /** Oldest first; tags rise by one. */
  waiting: Tagged<T>[];
  /** The tag its next envelope gets, unless the round being served is past it. */
  next: number;
}
