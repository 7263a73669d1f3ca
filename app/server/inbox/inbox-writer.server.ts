/**
 * The main thread's side of the inbox's writer thread (./inbox-writer-thread.server.ts): one
 * thread per process, started on the first write, that stores each envelope durably and
 * answers once per envelope. Under a page load the thread-pool round trips of an fs/promises
 * write each waited a turn of the event loop; a message from the thread waits one
 * (docs/decisions/0840-inbox-writer-thread.md).
 *
 * - A write resolves only once the thread says the envelope is durable; it rejects with the
 *   thread's error message and code when storing failed.
 * - A thread that stops (a crash) fails every write it had with WRITER_STOPPED; the next write
 *   starts a new one. A thread that does not answer within `timeoutMs` fails that write too.
 * - At most `maxPending` writes wait at once; past that a write is refused at once (INBOX_BUSY,
 *   which the tunnel answers like its other overload, 503).
 * - The thread keeps the process alive only while it has writes; `settled()` lets a shutdown
 *   wait for them.
 */
import { Worker } from 'node:worker_threads';
import { processShared } from '#app/server/process-shared.server';
import {
  asTransferable,
  busyError,
  errorOf,
  WRITER_STOPPED,
  type WriteResult,
  type WriteTarget,
} from './inbox-writer-protocol';
import { writerThreadSource } from './inbox-writer-thread.server';

/**
 * Writes waiting at once. The tunnel's 64 MiB bounds their bytes; this bounds the wait: at the
 * few hundred durable writes a second this machine's disk takes, the last waits about a second.
 */
export const MAX_PENDING_WRITES = 256;
/** A write the thread has not answered by then fails (a disk that hangs must not hang requests). */
export const WRITE_TIMEOUT_MS = 10_000;

export interface InboxWriter {
  /**
   * Stores `bytes` at `target.path` durably (all or nothing). The bytes are moved to the
   * writer thread when they are the whole of their buffer: the caller must not use them after.
   */
  write(target: WriteTarget, bytes: Uint8Array): Promise<void>;
  /** Starts the thread now (it takes tens of ms to boot), so that the first write need not wait. */
  start(): void;
  /** Writes not yet answered by the thread (including ones that timed out). */
  pending(): number;
  /** Resolves once no write is pending, or after `timeoutMs`; says which. */
  settled(timeoutMs: number): Promise<'settled' | 'timed-out'>;
  /** Stops the thread (tests); pending writes fail. */
  close(): Promise<void>;
}

export interface InboxWriterOptions {
  /** The worker's source (tests start threads that crash or never answer). */
  source?: string;
  maxPending?: number;
  timeoutMs?: number;
}

interface Pending {
  thread: Worker;
  timer: NodeJS.Timeout;
  settle(result: WriteResult): void;
}

export function createInboxWriter(options: InboxWriterOptions = {}): InboxWriter {
  const source = options.source ?? writerThreadSource();
  const maxPending = options.maxPending ?? MAX_PENDING_WRITES;
  const timeoutMs = options.timeoutMs ?? WRITE_TIMEOUT_MS;
  const pending = new Map<number, Pending>();
  const waitingForIdle = new Set<() => void>();
  let thread: Worker | undefined;
  let nextId = 0;

  const finish = (id: number, result: WriteResult) => {
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    clearTimeout(entry.timer);
    entry.settle(result);
    if (pending.size > 0) return;
    entry.thread.unref();
    for (const wake of waitingForIdle) wake();
  };

  const start = (): Worker => {
    const started = new Worker(source, { eval: true, name: 'inbox-writer' });
    let failure: string | undefined;
    started.on('message', (result: WriteResult) => finish(result.id, result));
    // Without a listener an error in the thread would be thrown in the server's main thread.
    started.on('error', (error) => {
      failure = error.message;
    });
    started.on('exit', (code) => {
      if (thread === started) thread = undefined;
      const message = `the inbox writer thread stopped (${failure ?? `exit code ${code}`})`;
      for (const [id, entry] of pending) {
        if (entry.thread === started) finish(id, { id, ok: false, message, code: WRITER_STOPPED });
      }
    });
    // After the listeners: adding a 'message' listener refs the thread again.
    started.unref();
    return started;
  };

  return {
    write(target, bytes) {
      if (pending.size >= maxPending) return Promise.reject(busyError(maxPending));
      thread ??= start();
      const current = thread;
      const id = nextId++;
      const owned = asTransferable(bytes);
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          // Still counted as pending until the thread answers: it is still busy with it.
          reject(
            errorOf({
              message: `the inbox writer did not answer within ${timeoutMs} ms`,
              code: 'ETIMEDOUT',
            }),
          );
        }, timeoutMs);
        timer.unref();
        pending.set(id, {
          thread: current,
          timer,
          settle: (result) => (result.ok ? resolve() : reject(errorOf(result))),
        });
        // Alive while it has work, never otherwise.
        if (pending.size === 1) current.ref();
        try {
          current.postMessage({ ...target, id, bytes: owned }, [owned.buffer]);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          finish(id, { id, ok: false, message, code: undefined });
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
        waitingForIdle.add(onIdle);
      });
    },

    async close() {
      const stopping = thread;
      thread = undefined;
      await stopping?.terminate();
    },
  };
}

/** The process's writer, shared by every copy of the inbox module the build holds. */
export function theInboxWriter(): InboxWriter {
  return processShared('inbox-writer', () => createInboxWriter());
}
