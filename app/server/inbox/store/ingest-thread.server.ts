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
 * - At most `maxPending` ingests wait at once; past that one is refused at once (`busy`).
 * - The thread keeps the process alive only while it has work; `settled()` lets a shutdown wait.
 * - `upkeep()` asks it to go on with a clear asked for (decision 1001); what it tells besides
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
  INGEST_STOPPED,
  type IngestAnswer,
  IngestError,
  type IngestNotice,
  type IngestThreadData,
  isIngestNotice,
  type UpkeepRequest,
} from './ingest-protocol';

/**
 * Envelopes waiting at once. The tunnel's receive budget bounds their bytes; this bounds the
 * wait: at a few thousand envelopes a second, the last waits well under a second.
 */
export const MAX_PENDING_INGESTS = 1024;
/** An ingest the thread has not answered by then fails: a disk that hangs must not hang requests. */
export const INGEST_TIMEOUT_MS = 10_000;

export interface IngestThread {
  /** Stores one envelope; the bytes are moved to the thread when they are the whole of their buffer. */
  ingest(bytes: Uint8Array, receivedAt: number): Promise<{ eventId?: string }>;
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
  timeoutMs?: number;
  /** What the thread tells besides its answers. */
  onNotice?: (notice: IngestNotice) => void;
}

interface Pending {
  thread: Worker;
  timer: NodeJS.Timeout;
  settle(answer: IngestAnswer): void;
}

export function createIngestThread(options: IngestThreadOptions): IngestThread {
  const maxPending = options.maxPending ?? MAX_PENDING_INGESTS;
  const timeoutMs = options.timeoutMs ?? INGEST_TIMEOUT_MS;
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
    if (pending.size > 0) return;
    entry.thread.unref();
    for (const wake of waitingForIdle) wake();
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
    });
    // After the listeners: adding a 'message' listener refs the thread again.
    started.unref();
    return started;
  };

  return {
    ingest(bytes, receivedAt) {
      if (pending.size >= maxPending) {
        return Promise.reject(
          new IngestError(
            INGEST_BUSY,
            `the local inbox has ${maxPending} envelopes waiting already`,
          ),
        );
      }
      thread ??= start();
      const current = thread;
      const id = nextId++;
      const owned = asTransferable(bytes);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          // Still pending until the thread answers: it is still busy with it.
          reject(new IngestError('timeout', `the inbox did not answer within ${timeoutMs} ms`));
        }, timeoutMs);
        timer.unref();
        pending.set(id, {
          thread: current,
          timer,
          settle: (answer) =>
            answer.ok
              ? resolve(answer.eventId ? { eventId: answer.eventId } : {})
              : reject(new IngestError(answer.code, answer.message, answer.status)),
        });
        // Alive while it has work, never otherwise.
        if (pending.size === 1) current.ref();
        try {
          current.postMessage({ id, bytes: owned, receivedAt }, [owned.buffer]);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          finish({ id, ok: false, code: 'failed', message });
        }
      });
    },
    start() {
      thread ??= start();
    },
    pending: () => pending.size,
    settled(waitMs) {
      if (pending.size === 0) return Promise.resolve('settled');
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

function workerFor(options: IngestThreadOptions): Worker {
  const workerData: IngestThreadData = {
    databasePath: options.databasePath,
    maxEvents: options.maxEvents,
    maxMb: options.maxMb,
    ...(options.buildOutput ? { buildOutput: options.buildOutput } : {}),
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
