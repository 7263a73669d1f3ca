/**
 * The body of the inbox's writer thread. It runs in a worker started from source text
 * (`new Worker(source, { eval: true })`), because the build bundles every module into chunks
 * and a worker file of its own would have to be shipped beside them: so `runWriterThread`
 * must stay self-contained, with everything it uses passed in, and its source is checked in
 * the production build by the HTTP tests.
 *
 * Each envelope is written durably with synchronous calls (temp file, write, fsync, close,
 * rename, directory fsync), so the main thread sees one message per envelope instead of eight
 * trips to the thread pool, each of which waited a whole turn of a busy event loop. Requests
 * that queued up while a batch was written are taken together (group commit): their files are
 * all written before the first fsync and share one directory fsync, which keeps the throughput
 * of the thread pool's four concurrent writers (docs/decisions/0840-inbox-writer-thread.md).
 */
import type * as FileSystem from 'node:fs';
import type { MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import type { WriteRequest, WriteResult } from './inbox-writer-protocol';

/** At most this many envelopes share one batch (one directory fsync). */
export const WRITER_MAX_BATCH = 32;

export function runWriterThread(
  port: MessagePort,
  receive: typeof receiveMessageOnPort,
  fs: typeof FileSystem,
  maxBatch: number,
): void {
  interface Job {
    request: WriteRequest;
    fd: number;
    created: boolean;
    renamed: boolean;
    error: unknown;
  }

  const attempt = (job: Job, step: () => void) => {
    if (job.error !== undefined) return;
    try {
      step();
    } catch (error) {
      job.error = error ?? new Error('write failed');
    }
  };

  const openTemp = (job: Job) => {
    const { dir, temp } = job.request;
    try {
      job.fd = fs.openSync(temp, 'wx');
    } catch (error) {
      // The first write, or someone deleted the directory while the server ran: make it.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      fs.mkdirSync(dir, { recursive: true });
      job.fd = fs.openSync(temp, 'wx');
    }
    // Only a temp file this write created is ever removed (another may own an existing one).
    job.created = true;
  };

  const writeAll = (job: Job) => {
    const { bytes } = job.request;
    let offset = 0;
    while (offset < bytes.length) {
      offset += fs.writeSync(job.fd, bytes, offset, bytes.length - offset);
    }
  };

  const closeFile = (job: Job) => {
    if (job.fd === -1) return;
    const fd = job.fd;
    job.fd = -1;
    try {
      fs.closeSync(fd);
    } catch (error) {
      if (job.error === undefined) job.error = error;
    }
  };

  /** Makes the renames durable: one fsync per directory for the whole batch. */
  const syncDirectory = (dir: string, jobs: Job[]) => {
    let fd: number;
    try {
      fd = fs.openSync(dir, 'r');
    } catch (error) {
      for (const job of jobs) job.error = error;
      return;
    }
    try {
      fs.fsyncSync(fd);
    } catch {
      // Some file systems refuse fsync on a directory; the rename is still atomic there.
    }
    try {
      fs.closeSync(fd);
    } catch {
      // Nothing was written through this descriptor.
    }
  };

  /** A failed write leaves nothing behind: no temp file, no entry. */
  const removeLeftovers = (job: Job) => {
    const { temp, path } = job.request;
    try {
      if (job.renamed) fs.unlinkSync(path);
      else if (job.created) fs.unlinkSync(temp);
    } catch {
      // Already gone.
    }
  };

  const answer = (job: Job): WriteResult => {
    if (job.error === undefined) return { id: job.request.id, ok: true };
    const error = job.error as NodeJS.ErrnoException;
    return {
      id: job.request.id,
      ok: false,
      message: typeof error?.message === 'string' ? error.message : String(error),
      code: typeof error?.code === 'string' ? error.code : undefined,
    };
  };

  const writeBatch = (requests: WriteRequest[]) => {
    const jobs: Job[] = requests.map((request) => ({
      request,
      fd: -1,
      created: false,
      renamed: false,
      error: undefined,
    }));
    // Every file written before the first fsync: one journal commit can carry them all.
    for (const job of jobs) {
      attempt(job, () => openTemp(job));
      attempt(job, () => writeAll(job));
    }
    for (const job of jobs) {
      attempt(job, () => fs.fsyncSync(job.fd));
      closeFile(job);
    }
    for (const job of jobs) {
      attempt(job, () => {
        fs.renameSync(job.request.temp, job.request.path);
        job.renamed = true;
      });
    }
    const byDirectory = new Map<string, Job[]>();
    for (const job of jobs) {
      if (job.error !== undefined) continue;
      const same = byDirectory.get(job.request.dir);
      if (same) same.push(job);
      else byDirectory.set(job.request.dir, [job]);
    }
    for (const [dir, same] of byDirectory) syncDirectory(dir, same);
    for (const job of jobs) {
      if (job.error !== undefined) removeLeftovers(job);
      port.postMessage(answer(job));
    }
  };

  port.on('message', (first: WriteRequest) => {
    const batch = [first];
    while (batch.length < maxBatch) {
      const next = receive(port);
      if (!next) break;
      batch.push(next.message as WriteRequest);
    }
    writeBatch(batch);
  });
}

/** The worker's source: `runWriterThread` with what it needs, as a CommonJS script. */
export function writerThreadSource(maxBatch = WRITER_MAX_BATCH): string {
  return [
    "'use strict';",
    // esbuild with keepNames (tsx does this) wraps named functions in `__name(fn, "name")`, a
    // helper of the module the function came from: here it only has to hand the function back.
    'const __name = (target) => target;',
    "const { parentPort, receiveMessageOnPort } = require('node:worker_threads');",
    `(${runWriterThread.toString()})(parentPort, receiveMessageOnPort, require('node:fs'), ${maxBatch});`,
  ].join('\n');
}
